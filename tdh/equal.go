package tdh

import "slices"

// Equal reports whether e and o describe the same schema: every field
// compared by value, properties, maps and alternates included. A nil and
// an empty list are equal, except a property's Members, whose being
// non-nil makes a struct ([Property.IsStruct]). Two nil events are
// equal.
func (e *Event) Equal(o *Event) bool {
	if e == nil || o == nil {
		return e == o
	}
	return e.Source == o.Source && e.ProviderName == o.ProviderName && e.ProviderGUID == o.ProviderGUID &&
		e.ID == o.ID && e.Version == o.Version && e.Level == o.Level && e.Opcode == o.Opcode &&
		e.Task == o.Task && e.Keywords == o.Keywords && e.Channel == o.Channel &&
		e.EventName == o.EventName && e.TaskName == o.TaskName && e.OpcodeName == o.OpcodeName &&
		e.LevelName == o.LevelName && e.ChannelName == o.ChannelName &&
		slices.Equal(e.KeywordNames, o.KeywordNames) && e.Message == o.Message && e.Tags == o.Tags &&
		propertiesEqual(e.Properties, o.Properties) &&
		slices.EqualFunc(e.Alternates, o.Alternates, (*Event).Equal)
}

// Equal reports whether p and o describe the same payload item (see
// [Event.Equal]).
func (p *Property) Equal(o *Property) bool {
	return p.Name == o.Name && p.InType == o.InType && p.OutType == o.OutType &&
		p.Length == o.Length && p.LengthIndex == o.LengthIndex &&
		p.Count == o.Count && p.CountIndex == o.CountIndex && p.IsArray == o.IsArray &&
		p.Tags == o.Tags && p.Optional == o.Optional && p.ToEnd == o.ToEnd &&
		p.Map.Equal(o.Map) &&
		(p.Members == nil) == (o.Members == nil) && propertiesEqual(p.Members, o.Members)
}

func propertiesEqual(a, b []Property) bool {
	return slices.EqualFunc(a, b, func(x, y Property) bool { return x.Equal(&y) })
}

// Equal reports whether m and o map the same values to the same texts
// under the same name and kind. Two nil maps are equal.
func (m *Map) Equal(o *Map) bool {
	if m == nil || o == nil {
		return m == o
	}
	return m.Name == o.Name && m.Kind == o.Kind && slices.Equal(m.Entries, o.Entries)
}
