package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// The reports are opened in headless Chromium as a person would open
// them: from file://, with the page's Content-Security-Policy. The test
// drives the browser through the DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages separated by NUL bytes on file
// descriptors 3 and 4), so one browser serves every report and the test
// sees what the browser's console and network see.

var screenshotDir = flag.String("screenshots", "", "write the screenshots of net.4.5.2.x64.etl's report (and the thread-time fixture's threads tab, the PktMon capture's network tab) to this directory (docs/img) as report-<section>.png")

// cdp is a DevTools protocol client over a pipe.
type cdp struct {
	cmd     *exec.Cmd
	w       *os.File
	msgs    chan cdpMsg
	id      int
	session string
	onEvent func(cdpMsg)
}

type cdpMsg struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func startBrowser(t *testing.T) *cdp {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		t.Skip("chromium not found: the report's browser checks are skipped (install Debian's chromium package to run them)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the DevTools pipe needs file descriptors 3 and 4")
	}
	toBrowser, browserIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	browserOut, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--window-size=1280,900",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3: commands in, fd 4: messages out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	c := &cdp{cmd: cmd, w: browserIn, msgs: make(chan cdpMsg, 256)}
	go func() {
		r := bufio.NewReaderSize(browserOut, 1<<20)
		for {
			b, err := r.ReadBytes(0)
			if err != nil {
				close(c.msgs)
				return
			}
			var m cdpMsg
			if json.Unmarshal(b[:len(b)-1], &m) == nil {
				c.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		browserIn.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		browserOut.Close()
	})
	return c
}

// call sends a command and waits for its answer; events met meanwhile go
// to onEvent.
func (c *cdp) call(method string, params any, result any) error {
	c.id++
	msg := map[string]any{"id": c.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if c.session != "" && !strings.HasPrefix(method, "Target.") {
		msg["sessionId"] = c.session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, 0)); err != nil {
		return err
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return errors.New("the browser closed the pipe")
			}
			if m.ID == c.id {
				if m.Error != nil {
					return fmt.Errorf("%s: %s", method, m.Error.Message)
				}
				if result != nil {
					return json.Unmarshal(m.Result, result)
				}
				return nil
			}
			if m.Method != "" && c.onEvent != nil {
				c.onEvent(m)
			}
		case <-timeout:
			return fmt.Errorf("%s: no answer in 30 s", method)
		}
	}
}

// wait reads events until cond holds.
func (c *cdp) wait(cond func() bool, d time.Duration) error {
	timeout := time.After(d)
	for !cond() {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return errors.New("the browser closed the pipe")
			}
			if m.Method != "" && c.onEvent != nil {
				c.onEvent(m)
			}
		case <-timeout:
			return errors.New("timed out")
		}
	}
	return nil
}

// drain handles the events already received.
func (c *cdp) drain() {
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return
			}
			if m.Method != "" && c.onEvent != nil {
				c.onEvent(m)
			}
		default:
			return
		}
	}
}

// eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value.
func (c *cdp) eval(expr string, v any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := c.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s", expr, res.ExceptionDetails.Text)
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(res.Result.Value, v)
}

// tab is one browser tab with what it reported.
type tab struct {
	*cdp
	loaded   bool
	console  []string // console errors, exceptions, error log entries
	requests []string // URLs requested other than the page itself
	pageURL  string
}

func openPage(t *testing.T, c *cdp) *tab {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call("Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	c.session = att.SessionID
	p := &tab{cdp: c}
	c.onEvent = p.event
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		if err := c.call(m, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *tab) event(m cdpMsg) {
	var v struct {
		Type string `json:"type"`
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
		ExceptionDetails struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
		Entry struct {
			Level, Text, URL string
		} `json:"entry"`
		Request struct {
			URL string `json:"url"`
		} `json:"request"`
	}
	json.Unmarshal(m.Params, &v)
	switch m.Method {
	case "Page.loadEventFired":
		p.loaded = true
	case "Runtime.consoleAPICalled":
		if v.Type == "error" || v.Type == "assert" || v.Type == "warning" {
			var parts []string
			for _, a := range v.Args {
				parts = append(parts, fmt.Sprint(a.Value, a.Description))
			}
			p.console = append(p.console, "console."+v.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		p.console = append(p.console, "exception: "+v.ExceptionDetails.Text+" "+v.ExceptionDetails.Exception.Description)
	case "Log.entryAdded":
		if v.Entry.Level == "error" || v.Entry.Level == "warning" {
			p.console = append(p.console, "log "+v.Entry.Level+": "+v.Entry.Text+" "+v.Entry.URL)
		}
	case "Network.requestWillBeSent":
		u := v.Request.URL
		if base, _, _ := strings.Cut(u, "#"); base != p.pageURL && !strings.HasPrefix(u, "data:") {
			p.requests = append(p.requests, u)
		}
	}
}

// selfTest is what the page's script writes in data-selftest.
type selfTest struct {
	Sections []string `json:"sections"`
	Visible  []string `json:"visible"`
	Charts   []struct {
		Chart   string `json:"chart"`
		Section string `json:"section"`
		W       int    `json:"w"`
		H       int    `json:"h"`
		Marks   int    `json:"marks"`
	} `json:"charts"`
}

func (p *tab) selfTest(t *testing.T) selfTest {
	t.Helper()
	var s string
	if err := p.eval(`document.documentElement.getAttribute('data-selftest')`, &s); err != nil {
		t.Fatal(err)
	}
	var st selfTest
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		t.Fatalf("data-selftest %q: %v", s, err)
	}
	return st
}

// load opens the report at path with fragment frag and waits for its
// script to finish.
func (p *tab) load(t *testing.T, path, frag string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs}).String()
	p.pageURL, p.loaded, p.console, p.requests = u, false, nil, nil
	if err := p.call("Page.navigate", map[string]any{"url": u + "#" + frag}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.wait(func() bool { return p.loaded }, 30*time.Second); err != nil {
		t.Fatalf("%s: load: %v", path, err)
	}
	var ready string
	for i := 0; i < 100 && ready != "1"; i++ {
		if err := p.eval(`document.documentElement.getAttribute('data-ready') || ''`, &ready); err != nil {
			t.Fatal(err)
		}
		if ready != "1" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if ready != "1" {
		t.Fatalf("%s: the page's script did not finish", path)
	}
}

// checkConsole fails on anything the browser or the page reported.
func (p *tab) checkConsole(t *testing.T) {
	t.Helper()
	var pageErrs string
	if err := p.eval(`document.documentElement.getAttribute('data-errors')`, &pageErrs); err != nil {
		t.Fatal(err)
	}
	if pageErrs != "[]" {
		t.Errorf("errors the page recorded: %s", pageErrs)
	}
	p.drain()
	if len(p.console) > 0 {
		t.Errorf("browser console: %q", p.console)
	}
	if len(p.requests) > 0 {
		t.Errorf("network requests: %q", p.requests)
	}
}

// screenshot captures the viewport as PNG.
func (p *tab) screenshot(t *testing.T) []byte {
	t.Helper()
	var res struct {
		Data string `json:"data"`
	}
	if err := p.call("Page.captureScreenshot", map[string]any{"format": "png"}, &res); err != nil {
		t.Fatal(err)
	}
	b, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// looksDrawn checks that a screenshot is not blank: enough colours and
// enough pixels away from the background.
func looksDrawn(b []byte) (string, bool) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return err.Error(), false
	}
	r := img.Bounds()
	colours := map[color.RGBA]bool{}
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c.R < 235 || c.G < 235 || c.B < 235 {
				ink++
			}
		}
	}
	frac := float64(ink) / float64(r.Dx()*r.Dy()/4)
	return fmt.Sprintf("%dx%d, %d colours, %.0f %% ink", r.Dx(), r.Dy(), len(colours), frac*100), len(colours) >= 16 && frac > 0.03
}

// browserCase is one report to open.
type browserCase struct {
	name     string
	data     func(t *testing.T) *Data
	sections []string
	rel      string // the corpus file, if it is one
}

// TestBrowser opens the reports of the bundled fixtures, the synthetic
// trace and three corpus files (net.4.5.2.x64, a PktMon capture,
// ShutdownPerfDiagLogger) in headless Chromium and checks, for each: no
// console error, exception, failed or network request; every section
// present; every chart drawn with a non-zero size and marks, with all
// sections shown (#all) and in its own tab; a screenshot of every tab
// that is not blank; zooming the time charts through the URL.
func TestBrowser(t *testing.T) {
	c := startBrowser(t)
	p := openPage(t, c)
	var cases []browserCase
	for _, fx := range fixtures {
		cases = append(cases, browserCase{name: strings.Join(fx.files, "+"), data: func(t *testing.T) *Data { return fixtureReport(t, fx.files, fx.schema) }})
	}
	cases = append(cases, browserCase{name: "synthetic", data: func(t *testing.T) *Data {
		return mustBuild(t, []*etl.File{openBytes(synthTrace())}, decode.New())
	}, sections: []string{"overview", "cpuutil", "timeline", "processes", "cpu", "dotnet", "io", "providers", "events"}})
	cases = append(cases, browserCase{name: "threads", data: func(t *testing.T) *Data {
		return mustBuild(t, []*etl.File{openBytes(threadsTrace(t))}, decode.New())
	}, sections: []string{"overview", "timeline", "processes", "threads", "providers", "events"}})
	for _, cf := range []struct{ name, rel string }{{"net.4.5.2.x64", netRel}, {"PktMon", pktmonRel}, {"ShutdownPerfDiagLogger", shutdownRel}} {
		cases = append(cases, browserCase{name: cf.name, rel: cf.rel, data: func(t *testing.T) *Data { d, _ := corpusReport(t, cf.rel); return d }})
	}
	cases[len(cases)-3].sections = []string{"overview", "cpuutil", "timeline", "processes", "cpu", "dotnet", "io", "providers", "events"}
	dir := t.TempDir()
	for _, bc := range cases {
		t.Run(bc.name, func(t *testing.T) {
			d := bc.data(t)
			path := filepath.Join(dir, strings.NewReplacer("+", "_", ".", "_").Replace(bc.name)+".html")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.WriteHTML(f); err != nil {
				t.Fatal(err)
			}
			f.Close()
			size, _ := os.Stat(path)
			browserCheck(t, p, path, bc, d)
			t.Logf("%d bytes", size.Size())
		})
	}
}

func browserCheck(t *testing.T, p *tab, path string, bc browserCase, d *Data) {
	p.load(t, path, "all")
	p.checkConsole(t)
	st := p.selfTest(t)
	if bc.sections != nil && !slices.Equal(st.Sections, bc.sections) {
		t.Errorf("sections %v, want %v", st.Sections, bc.sections)
	}
	if !slices.Equal(st.Sections, st.Visible) {
		t.Errorf("#all shows %v of %v", st.Visible, st.Sections)
	}
	var summary []string
	for _, ch := range st.Charts {
		if ch.W <= 0 || ch.H <= 0 || ch.Marks == 0 {
			t.Errorf("chart %s (%s) not drawn: %dx%d, %d marks", ch.Chart, ch.Section, ch.W, ch.H, ch.Marks)
		}
		summary = append(summary, fmt.Sprintf("%s %dx%d/%d", ch.Chart, ch.W, ch.H, ch.Marks))
	}
	wantCharts := map[string]bool{"coverage": true, "timeline": true}
	if d.Processes != nil {
		wantCharts["gantt"] = true
	}
	if d.CPU != nil {
		wantCharts["flame"] = true
	}
	if d.DotNet != nil && len(d.DotNet.GCs) > 0 {
		wantCharts["gc"] = true
	}
	if d.IO != nil && d.IO.Disk != nil {
		wantCharts["disk-proc"], wantCharts["disk-file"] = true, true
	}
	for _, ch := range st.Charts {
		delete(wantCharts, ch.Chart)
	}
	if len(wantCharts) > 0 {
		t.Errorf("charts missing: %v", wantCharts)
	}
	t.Logf("charts: %s", strings.Join(summary, ", "))

	// Each tab as a person sees it.
	for _, sec := range st.Sections {
		if err := p.eval(`location.hash = '#`+sec+`'; new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, nil); err != nil {
			t.Fatal(err)
		}
		tab := p.selfTest(t)
		if !slices.Equal(tab.Visible, []string{sec}) {
			t.Errorf("tab %s shows %v", sec, tab.Visible)
		}
		for _, ch := range tab.Charts {
			if ch.Section == sec && (ch.W <= 0 || ch.H <= 0 || ch.Marks == 0) {
				t.Errorf("tab %s: chart %s not drawn: %dx%d, %d marks", sec, ch.Chart, ch.W, ch.H, ch.Marks)
			}
		}
		shot := p.screenshot(t)
		if what, ok := looksDrawn(shot); !ok {
			t.Errorf("tab %s: screenshot looks blank: %s", sec, what)
		}
		if *screenshotDir != "" && (bc.name == "net.4.5.2.x64" || bc.name == "threads" && sec == "threads" || bc.name == "PktMon" && sec == "network") {
			writeDocScreenshot(t, filepath.Join(*screenshotDir, "report-"+sec+".png"), shot)
		}
	}
	p.checkConsole(t)

	interact(t, p, d)
	checkProfile(t, p, d)
	if d.Events != nil {
		eventsCheck(t, p, bc, d)
	}

	// Zoom through the URL: the time charts show the view asked for and
	// the timeline is redrawn.
	if d.Timeline != nil {
		a, b := d.Overview.DurationSec*0.25, d.Overview.DurationSec*0.5
		if err := p.eval(fmt.Sprintf(`location.hash = '#timeline/%g,%g'; new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, a, b), nil); err != nil {
			t.Fatal(err)
		}
		var vb string
		if err := p.eval(`document.querySelector('svg[data-chart=timeline] svg.plot').getAttribute('viewBox')`, &vb); err != nil {
			t.Fatal(err)
		}
		var x0, w, units float64
		fmt.Sscanf(vb, "%g 0 %g %g", &x0, &w, &units)
		if !near(x0, a) || !near(x0+w, b) {
			t.Errorf("zoomed timeline viewBox %q, want %g..%g", vb, a, b)
		}
		p.checkConsole(t)
	}
}

// interact uses the page as a person would: drags across the timeline to
// zoom and double-clicks to zoom out, searches the flame graph and picks
// a process, sorts the providers table.
func interact(t *testing.T, p *tab, d *Data) {
	t.Helper()
	settle := `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`
	viewBox := func() (a, b float64) {
		var vb string
		if err := p.eval(`document.querySelector('svg[data-chart=timeline] svg.plot').getAttribute('viewBox')`, &vb); err != nil {
			t.Fatal(err)
		}
		var w, u float64
		fmt.Sscanf(vb, "%g 0 %g %g", &a, &w, &u)
		return a, a + w
	}
	mouse := func(typ string, x, y float64, clicks int) {
		if err := p.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": clicks}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if d.Timeline != nil {
		if err := p.eval(`location.hash = '#timeline'; `+settle, nil); err != nil {
			t.Fatal(err)
		}
		var r struct{ X, Y, W, H float64 }
		if err := p.eval(`(() => { const b = document.querySelector('svg[data-chart=timeline] rect.frame').getBoundingClientRect(); return {X: b.left, Y: b.top, W: b.width, H: b.height}; })()`, &r); err != nil {
			t.Fatal(err)
		}
		_, full := viewBox()
		y := r.Y + r.H/2
		mouse("mousePressed", r.X+r.W*0.2, y, 1)
		mouse("mouseMoved", r.X+r.W*0.4, y, 0)
		mouse("mouseReleased", r.X+r.W*0.6, y, 1)
		p.eval(settle, nil)
		a, b := viewBox()
		if math.Abs(a-0.2*full) > full*0.01 || math.Abs(b-0.6*full) > full*0.01 {
			t.Errorf("drag from 20 %% to 60 %% of %g s: view %g..%g", full, a, b)
		}
		mouse("mousePressed", r.X+r.W/2, y, 1)
		mouse("mouseReleased", r.X+r.W/2, y, 1)
		mouse("mousePressed", r.X+r.W/2, y, 2)
		mouse("mouseReleased", r.X+r.W/2, y, 2)
		p.eval(settle, nil)
		if a, b := viewBox(); a != 0 || !near(b, full) {
			t.Errorf("double-click: view %g..%g, want the whole %g s", a, b, full)
		}
	}
	if d.CPU != nil {
		if err := p.eval(`location.hash = '#cpu'; `+settle, nil); err != nil {
			t.Fatal(err)
		}
		first := d.CPU.Root.Children[0].Name
		var hits int
		var info string
		if err := p.eval(fmt.Sprintf(`(() => { const s = document.getElementById('flame-search'); s.value = %q; s.dispatchEvent(new Event('input')); return document.querySelectorAll('#flame g.hit').length; })()`, first), &hits); err != nil {
			t.Fatal(err)
		}
		p.eval(`document.getElementById('flame-info').textContent`, &info)
		if hits == 0 || !strings.Contains(info, "matching frames") {
			t.Errorf("searching the flame graph for %q: %d frames highlighted, info %q", first, hits, info)
		}
		var anc int
		if err := p.eval(`(() => { const s = document.getElementById('flame-proc'); s.value = '0'; s.dispatchEvent(new Event('change')); return document.querySelectorAll('#flame g.anc').length; })()`, &anc); err != nil {
			t.Fatal(err)
		}
		p.eval(`document.getElementById('flame-info').textContent`, &info)
		if anc != 1 || !strings.HasPrefix(info, first+":") {
			t.Errorf("picking process %q: %d ancestors drawn, info %q", first, anc, info)
		}
		// The weights in ms when the trace logs the sampling interval.
		if u := d.CPUUtilization; u != nil && u.IntervalMS > 0 {
			root := d.CPU.Root.Children[0].Value
			want := fmt.Sprintf("%s samples, %s ms", thousands(root), thousands(int64(math.Round(float64(root)*u.IntervalMS))))
			if !strings.HasPrefix(info, first+": "+want) {
				t.Errorf("process %q: info %q, want %q", first, info, want)
			}
		}
		// Click the process's first frame, if it has one: it fills the
		// width under its two ancestors.
		if ch := d.CPU.Root.Children[0].Children; len(ch) > 0 {
			var got struct {
				Anc  int
				Info string
			}
			err := p.eval(`(() => { const g = Array.from(document.querySelectorAll('#flame g')).find(g => !g.classList.contains('anc') && g.querySelector('rect').getAttribute('y') === '36');
				g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
				return {Anc: document.querySelectorAll('#flame g.anc').length, Info: document.getElementById('flame-info').textContent}; })()`, &got)
			if err != nil {
				t.Fatal(err)
			}
			if got.Anc != 2 || !strings.HasPrefix(got.Info, ch[0].Name+":") {
				t.Errorf("clicking frame %q: %d ancestors, info %q", ch[0].Name, got.Anc, got.Info)
			}
		}
		p.eval(`document.getElementById('flame-reset').click()`, nil)
	}
	if err := p.eval(`location.hash = '#providers'; `+settle, nil); err != nil {
		t.Fatal(err)
	}
	var sorted []float64
	if err := p.eval(`(() => { const t = document.getElementById('prov-table'); t.tHead.rows[0].cells[3].click(); return Array.from(t.tBodies[0].rows, r => +r.cells[3].textContent.replace(/,/g, '')); })()`, &sorted); err != nil {
		t.Fatal(err)
	}
	if len(sorted) != len(d.Providers) || !slices.IsSortedFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) }) {
		t.Errorf("providers sorted by decoded events: %v", sorted)
	}
}

// writeDocScreenshot writes a screenshot for the documentation, reduced
// to its 256 most frequent colours (a UI screenshot has few) so that the
// PNG stays small.
func writeDocScreenshot(t *testing.T, path string, b []byte) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := img.Bounds()
	counts := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	var all []color.RGBA
	for c := range counts {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b color.RGBA) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return int(a.R)<<16 + int(a.G)<<8 + int(a.B) - (int(b.R)<<16 + int(b.G)<<8 + int(b.B))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range all[:min(256, len(all))] {
		pal = append(pal, c)
	}
	out := image.NewPaletted(r, pal)
	index := map[color.RGBA]uint8{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, buf.Len())
}
