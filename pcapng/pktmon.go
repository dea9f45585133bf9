package pcapng

import (
	"strconv"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/netcap"
)

// PktMonGUID is Microsoft-Windows-PktMon's provider GUID.
var PktMonGUID = catalog.PktMonGUID

// pktmonComment renders the packet's line as pktmon's message strings
// (English) do: "PktGroupId 1, PktNumber 1, Appearance 1, Direction Tx,
// Type Ethernet, Component 79, Edge 1, Filter 0, OriginalSize 55,
// LoggedSize 55"; drops say "Drop:" and give DropReason and
// DropLocation.
func (c *Converter) pktmonComment(p *netcap.Packet) string {
	b := c.comment[:0]
	num := func(label string, v uint64) {
		if len(b) > 0 && b[len(b)-1] != ' ' {
			b = append(b, ", "...)
		}
		b = append(b, label...)
		b = append(b, ' ')
		b = strconv.AppendUint(b, v, 10)
	}
	text := func(label, v string) {
		if len(b) > 0 && b[len(b)-1] != ' ' {
			b = append(b, ", "...)
		}
		b = append(b, label...)
		b = append(b, ' ')
		b = append(b, v...)
	}
	switch p.EventID {
	case catalog.PktMonDrop:
		b = append(b, "Drop: "...)
	case catalog.PktMonDuplicateDrop:
		b = append(b, "Duplicate Drop: "...)
	case catalog.PktMonDropV4, catalog.PktMonDropV6:
		b = append(b, "Drop: "...)
	}
	if p.HasPacketID {
		num("PktGroupId", p.PacketID)
		num("PktNumber", p.PktNumber)
		num("Appearance", p.Appearance)
	}
	text("Direction", netcap.DirTagName(p.DirTag))
	text("Type", netcap.PacketTypeName(p.PacketType))
	num("Component", uint64(p.Component))
	if !p.Drop {
		num("Edge", p.Edge)
	}
	num("Filter", p.Filter)
	if p.Drop {
		text("DropReason", p.DropReason)
		b = append(b, ", DropLocation 0x"...)
		b = appendUpperHex(b, p.DropLocation)
	}
	num("OriginalSize", uint64(p.OriginalLength))
	num("LoggedSize", uint64(len(p.Data)))
	c.comment = b
	return string(b)
}

func appendUpperHex(b []byte, v uint64) []byte {
	const digits = "0123456789ABCDEF"
	var tmp [16]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = digits[v&0xF]
		v >>= 4
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}
