package fleetpipe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/metricsx"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Counters are the pipeline's counters (Beam metrics of namespace
// etl-fleet): the elements converted (a file or an .etl.NNN set), the
// bytes and events read, and the errors lines written.
type Counters struct {
	Files, Bytes, Events, Errors int64
}

// String gives the counters as one line.
func (c Counters) String() string {
	return fmt.Sprintf("files %d, bytes %d, events %d, errors %d", c.Files, c.Bytes, c.Events, c.Errors)
}

// CountersOf returns the etl-fleet counters of Beam's metric results,
// summed over the steps; committed says whether to take the committed
// values (those of finished bundles) or the attempted ones.
func CountersOf(r metrics.Results, committed bool) Counters {
	var c Counters
	for _, m := range r.AllMetrics().Counters() {
		if m.Key.Namespace != "etl-fleet" {
			continue
		}
		v := m.Attempted
		if committed {
			v = m.Committed
		}
		switch m.Key.Name {
		case "files":
			c.Files += v
		case "bytes":
			c.Bytes += v
		case "events":
			c.Events += v
		case "errors":
			c.Errors += v
		}
	}
	return c
}

// Run runs p on the runner Beam's flags name (prism when none) and, while
// it runs, calls report every interval with the counters of the bundles
// finished so far (final false), read from the job service: prism's,
// started in-process here, or the one --endpoint names (Flink, Spark).
// Runners without a job service (Dataflow) report nothing while they run.
// When the pipeline ends with a result, report is called once more with
// the final counters (final true), which Run returns too.
func Run(ctx context.Context, p *beam.Pipeline, interval time.Duration, report func(c Counters, final bool)) (Counters, error) {
	client, err := jobService(ctx)
	if err != nil {
		return Counters{}, err
	}
	if *jobopts.JobName == "" {
		*jobopts.JobName = "etl-fleet-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	name := *jobopts.JobName
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if client != nil && interval > 0 && report != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			watch(wctx, client, name, interval, report)
		}()
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	stop()
	wg.Wait()
	if res == nil {
		// No result (a failure to start, or a runner that gives none):
		// no final counters to tell.
		return Counters{}, err
	}
	c := CountersOf(res.Metrics(), true)
	if report != nil {
		report(c, true)
	}
	return c, err
}

// jobService returns a client of the job service the pipeline will run
// on: for prism without an endpoint, a prism job server started here
// (and named as the endpoint, so that the run uses it); nil for a
// runner without one.
func jobService(ctx context.Context) (jobpb.JobServiceClient, error) {
	if *jobopts.Endpoint == "" {
		if r := *runners.Runner; r != "" && r != "prism" && r != "PrismRunner" {
			return nil, nil
		}
		endpoint, client, err := startPrism(ctx)
		if err != nil {
			return nil, err
		}
		*jobopts.Endpoint = endpoint
		if *jobopts.EnvironmentType == "" {
			*jobopts.EnvironmentType = "loopback"
		}
		return client, nil
	}
	cc, err := grpc.NewClient(*jobopts.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("job service %s: %w", *jobopts.Endpoint, err)
	}
	return jobpb.NewJobServiceClient(cc), nil
}

// startPrism starts prism's job server in-process on a free port, as
// prism.Execute does on port 0 (whose port it does not tell).
func startPrism(ctx context.Context) (endpoint string, client jobpb.JobServiceClient, err error) {
	for try := 0; try < 5; try++ {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return "", nil, fmt.Errorf("prism: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		// The server panics when it cannot listen (the port taken
		// since): try another.
		client, err = func() (c jobpb.JobServiceClient, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("prism: %v", r)
				}
			}()
			return prism.CreateJobServer(ctx, prism.Options{Port: port})
		}()
		if err == nil {
			return "localhost:" + strconv.Itoa(port), client, nil
		}
	}
	return "", nil, errors.New("prism: no free port for the job server")
}

// watch calls report with the counters of the job named name every
// interval until ctx ends. A job not yet submitted, or a failed query,
// is tried again at the next tick.
func watch(ctx context.Context, client jobpb.JobServiceClient, name string, interval time.Duration, report func(Counters, bool)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var id string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if id == "" {
			jobs, err := client.GetJobs(ctx, &jobpb.GetJobsRequest{})
			if err != nil {
				continue
			}
			for _, j := range jobs.GetJobInfo() {
				if j.GetJobName() == name {
					id = j.GetJobId()
				}
			}
			if id == "" {
				continue
			}
		}
		m, err := client.GetJobMetrics(ctx, &jobpb.GetJobMetricsRequest{JobId: id})
		if err != nil || ctx.Err() != nil {
			continue
		}
		r := metricsx.FromMonitoringInfos(nil, nil, m.GetMetrics().GetCommitted())
		report(CountersOf(*r, true), false)
	}
}
