package tdh

import (
	"strconv"
	"strings"
)

// SchemaDoc is a schema as people and programs list it (tracerpt-go
// schemas --json): the event's identity, names and properties, with
// types by their manifest names. It marshals to JSON with stable keys.
type SchemaDoc struct {
	ProviderGUID string        `json:"provider_guid"`
	ProviderName string        `json:"provider_name"`
	EventID      uint16        `json:"event_id"`
	Version      uint8         `json:"version"`
	Task         uint16        `json:"task"`
	Opcode       uint8         `json:"opcode"`
	Level        uint8         `json:"level"`
	Keywords     string        `json:"keywords"`
	EventName    string        `json:"event_name"`
	TaskName     string        `json:"task_name"`
	OpcodeName   string        `json:"opcode_name"`
	Source       string        `json:"source"`
	Message      string        `json:"message,omitempty"`
	Properties   []PropertyDoc `json:"properties"`
}

// PropertyDoc is one property of a [SchemaDoc].
type PropertyDoc struct {
	Name    string `json:"name"`
	InType  string `json:"in_type"`
	OutType string `json:"out_type,omitempty"`
	// Count is a fixed element count, or the name of the property that
	// holds it ("" for a scalar); ToEnd arrays say "*".
	Count any `json:"count,omitempty"`
	// Length is a fixed length or the name of the property holding it.
	Length  any           `json:"length,omitempty"`
	Map     string        `json:"map,omitempty"`
	Members []PropertyDoc `json:"members,omitempty"`
}

// Describe returns e as a [SchemaDoc].
func Describe(e *Event) SchemaDoc {
	d := SchemaDoc{
		ProviderGUID: "{" + e.ProviderGUID.String() + "}", ProviderName: e.ProviderName,
		EventID: e.ID, Version: e.Version, Task: e.Task, Opcode: e.Opcode, Level: e.Level,
		Keywords: "0x" + strings.ToUpper(strconv.FormatUint(e.Keywords, 16)), EventName: e.EventName, TaskName: e.TaskName, OpcodeName: e.OpcodeName,
		Source: e.Source.String(), Message: e.Message,
		Properties: describeProps(e.Properties),
	}
	return d
}

func describeProps(ps []Property) []PropertyDoc {
	out := make([]PropertyDoc, 0, len(ps))
	for i := range ps {
		p := &ps[i]
		d := PropertyDoc{Name: p.Name}
		if p.IsStruct() {
			d.InType = "struct"
			d.Members = describeProps(p.Members)
		} else {
			d.InType = p.InType.String()
			if p.OutType != OutTypeNull {
				d.OutType = p.OutType.String()
			}
		}
		switch {
		case p.CountIndex >= 0 && p.CountIndex < len(ps):
			d.Count = ps[p.CountIndex].Name
		case p.ToEnd:
			d.Count = "*"
		case p.IsArray:
			d.Count = int(p.Count)
		}
		switch {
		case p.LengthIndex >= 0 && p.LengthIndex < len(ps):
			d.Length = ps[p.LengthIndex].Name
		case p.Length > 0:
			d.Length = int(p.Length)
		}
		if p.Map != nil {
			d.Map = p.Map.Name
		}
		out = append(out, d)
	}
	return out
}
