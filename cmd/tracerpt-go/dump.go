package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

func runDump(cmd *cobra.Command, args []string, o *dumpOptions) error {
	if !strings.EqualFold(o.format, "JSON") {
		return fmt.Errorf("output format %q is not supported yet (supported: JSON)", o.format)
	}
	var files []*etl.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, p := range args {
		f, err := etl.Open(p)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	var out io.Writer = cmd.OutOrStdout()
	if o.output != "-" && o.output != "" {
		fo, err := os.Create(o.output)
		if err != nil {
			return err
		}
		defer fo.Close()
		out = fo
	}
	order := etl.TimeOrder
	if o.fileOrder {
		order = etl.FileOrder
	}
	dec := decode.New()
	dec.Nearest = o.nearest
	if err := dec.Import(o.manifests...); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: warning: %v\n", err)
	}
	if err := dec.Prescan(files); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: warning: %v\n", err)
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	r := etl.NewReader(files, &etl.ReaderOptions{Order: order, Workers: o.workers})
	defer r.Close()
	var line []byte
	jo := jsonOptions{multiFile: len(files) > 1, raw: o.raw}
	for r.Next() {
		ev := r.Event()
		line = appendEventJSON(line[:0], ev, dec.Decode(ev), &jo)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	for _, err := range r.Errors() {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: warning: %v\n", err)
	}
	return nil
}

type jsonOptions struct {
	multiFile bool // add the "file" key
	raw       bool // keep user_data for decoded events
}

// appendEventJSON appends one event as a JSON object (docs/cli.md). Keys
// come in a fixed order so that output is byte-for-byte reproducible.
func appendEventJSON(b []byte, ev *etl.Event, res *decode.Result, o *jsonOptions) []byte {
	b = append(b, `{"time":"`...)
	b = etl.FiletimeToTime(ev.Time).AppendFormat(b, "2006-01-02T15:04:05.0000000Z")
	b = append(b, `","filetime":`...)
	b = strconv.AppendInt(b, ev.Time, 10)
	b = append(b, `,"raw_timestamp":`...)
	b = strconv.AppendInt(b, ev.Timestamp, 10)
	if o.multiFile {
		b = append(b, `,"file":`...)
		b = strconv.AppendInt(b, int64(ev.File), 10)
	}
	b = append(b, `,"cpu":`...)
	b = strconv.AppendUint(b, uint64(ev.Processor), 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, uint64(ev.ProcessID), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, uint64(ev.ThreadID), 10)
	b = append(b, `,"header":"`...)
	b = append(b, ev.Header.String()...)
	b = append(b, `","flags":"0x`...)
	b = strconv.AppendUint(b, uint64(ev.Flags), 16)
	b = append(b, `","provider_guid":"`...)
	b = appendGUID(b, ev.ProviderID)
	d := &ev.Descriptor
	b = append(b, `","event_id":`...)
	b = strconv.AppendUint(b, uint64(d.ID), 10)
	b = append(b, `,"version":`...)
	b = strconv.AppendUint(b, uint64(d.Version), 10)
	b = append(b, `,"channel":`...)
	b = strconv.AppendUint(b, uint64(d.Channel), 10)
	b = append(b, `,"level":`...)
	b = strconv.AppendUint(b, uint64(d.Level), 10)
	b = append(b, `,"opcode":`...)
	b = strconv.AppendUint(b, uint64(d.Opcode), 10)
	b = append(b, `,"task":`...)
	b = strconv.AppendUint(b, uint64(d.Task), 10)
	b = append(b, `,"keywords":"0x`...)
	b = strconv.AppendUint(b, d.Keyword, 16)
	b = append(b, '"')
	switch ev.Header {
	case etl.HeaderSystem32, etl.HeaderSystem64, etl.HeaderCompact32, etl.HeaderCompact64, etl.HeaderPerfInfo32, etl.HeaderPerfInfo64:
		b = append(b, `,"hook_id":"0x`...)
		b = strconv.AppendUint(b, uint64(ev.HookID), 16)
		b = append(b, '"')
	case etl.HeaderInstance32, etl.HeaderInstance64:
		b = append(b, `,"instance_id":`...)
		b = strconv.AppendUint(b, uint64(ev.InstanceID), 10)
		b = append(b, `,"parent_instance_id":`...)
		b = strconv.AppendUint(b, uint64(ev.ParentInstanceID), 10)
		b = append(b, `,"parent_guid":"`...)
		b = appendGUID(b, ev.ParentGUID)
		b = append(b, '"')
	case etl.HeaderMessage:
		b = append(b, `,"message_flags":"0x`...)
		b = strconv.AppendUint(b, uint64(ev.MessageFlags), 16)
		b = append(b, `","sequence":`...)
		b = strconv.AppendUint(b, uint64(ev.SequenceNumber), 10)
		b = append(b, `,"component_id":`...)
		b = strconv.AppendUint(b, uint64(ev.ComponentID), 10)
	}
	if ev.Flags&etl.FlagNoCPUTime == 0 {
		if ev.Flags&etl.FlagPrivateSession != 0 {
			b = append(b, `,"processor_time":`...)
			b = strconv.AppendUint(b, ev.ProcessorTime, 10)
		} else {
			b = append(b, `,"kernel_time":`...)
			b = strconv.AppendUint(b, uint64(ev.KernelTime), 10)
			b = append(b, `,"user_time":`...)
			b = strconv.AppendUint(b, uint64(ev.UserTime), 10)
		}
	}
	if ev.ActivityID != uuid.Nil {
		b = append(b, `,"activity_id":"`...)
		b = appendGUID(b, ev.ActivityID)
		b = append(b, '"')
	}
	if g, ok := ev.RelatedActivityID(); ok {
		b = append(b, `,"related_activity_id":"`...)
		b = appendGUID(b, g)
		b = append(b, '"')
	}
	if len(ev.Extended) > 0 {
		b = append(b, `,"extended":[`...)
		for i, x := range ev.Extended {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendExtended(b, x)
		}
		b = append(b, ']')
	}
	decoded := res != nil && res.Schema != nil && res.Err == nil
	if res != nil && res.Schema != nil {
		b = appendSchemaNames(b, ev, res.Schema)
		if !res.Exact {
			b = append(b, `,"schema_version":`...)
			b = strconv.AppendUint(b, uint64(res.Schema.Version), 10)
		}
	} else {
		b = appendLevelName(b, d.Level, "")
	}
	if decoded {
		b = append(b, `,"properties":`...)
		b = tdh.AppendPropertiesJSON(b, res.Decoded)
		if res.Schema.Message != "" {
			b = append(b, `,"message":`...)
			b = appendJSON(b, tdh.FormatMessage(res.Schema.Message, res.Decoded, nil))
		}
	}
	if !decoded || o.raw {
		b = append(b, `,"user_data":"`...)
		b = hex.AppendEncode(b, ev.UserData)
		b = append(b, '"')
	}
	if res != nil && res.Err != nil {
		b = append(b, `,"decode_error":`...)
		b = appendJSON(b, res.Err.Error())
	}
	return append(b, '}')
}

// appendSchemaNames adds the names a schema gives the event.
func appendSchemaNames(b []byte, ev *etl.Event, s *tdh.Event) []byte {
	str := func(b []byte, key, v string) []byte {
		if v == "" {
			return b
		}
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		return appendJSON(b, v)
	}
	b = str(b, "provider_name", s.ProviderName)
	b = str(b, "event_name", s.EventName)
	b = str(b, "task_name", s.TaskName)
	b = str(b, "opcode_name", s.OpcodeName)
	return appendLevelName(b, ev.Descriptor.Level, s.LevelName)
}

// standardLevels are winmeta.xml's level names.
var standardLevels = [...]string{"Log Always", "Critical", "Error", "Warning", "Information", "Verbose"}

func appendLevelName(b []byte, level uint8, name string) []byte {
	if name == "" && int(level) < len(standardLevels) && level > 0 {
		name = standardLevels[level]
	}
	if name == "" {
		return b
	}
	b = append(b, `,"level_name":`...)
	return appendJSON(b, name)
}

func appendGUID(b []byte, g uuid.UUID) []byte {
	b = append(b, '{')
	var s [36]byte
	hex.Encode(s[0:8], g[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], g[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], g[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], g[8:10])
	s[23] = '-'
	hex.Encode(s[24:], g[10:])
	b = append(b, s[:]...)
	return append(b, '}')
}

// appendExtended writes {"type":NAME,"value":V} with V the typed value of
// the item, or {"type":NAME,"data":HEX,"error":MSG} when it does not
// decode. Raw blobs (TraceLogging schemas, unknown types) are hex strings.
func appendExtended(b []byte, x etl.ExtendedItem) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, x.Type.String()...)
	b = append(b, '"')
	v, err := x.Value()
	if err != nil {
		b = append(b, `,"data":"`...)
		b = hex.AppendEncode(b, x.Data)
		b = append(b, `","error":`...)
		return append(appendJSON(b, err.Error()), '}')
	}
	b = append(b, `,"value":`...)
	return append(appendJSON(b, jsonValue(v)), '}')
}

// jsonValue maps typed extended values to their JSON form: GUIDs braced,
// SIDs as S-1-… strings, byte blobs as hex.
func jsonValue(v any) any {
	switch v := v.(type) {
	case uuid.UUID:
		return string(appendGUID(nil, v))
	case etl.SID:
		return v.String()
	case []byte:
		return hex.EncodeToString(v)
	case etl.InstanceInfo:
		return map[string]any{"instance_id": v.InstanceID, "parent_instance_id": v.ParentInstanceID, "parent_guid": string(appendGUID(nil, v.ParentGUID))}
	case etl.ProviderTraits:
		traits := []any{}
		for _, t := range v.Traits {
			m := map[string]any{"type": t.Type}
			if t.GUID != nil {
				m["guid"] = string(appendGUID(nil, *t.GUID))
			} else {
				m["data"] = hex.EncodeToString(t.Data)
			}
			traits = append(traits, m)
		}
		return map[string]any{"name": v.Name, "traits": traits}
	}
	return v
}

func appendJSON(b []byte, v any) []byte {
	j, err := json.Marshal(v)
	if err != nil {
		return strconv.AppendQuote(b, fmt.Sprint(v))
	}
	return append(b, j...)
}
