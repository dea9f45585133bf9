package pcapng

import (
	"fmt"
	"strconv"

	"github.com/etwkit/etw/netcap"
)

// NDIS packet capture interfaces and packets are written as
// microsoft/etl2pcapng writes them (package netcap names the interfaces
// as it does): one interface per kind, LowerIfIndex, medium and, for the
// Hyper-V switch, source port and VLAN (etl2pcapng reads the file twice
// to write them first, sorted; this writer streams them when their first
// packet comes).

// ndisData returns the bytes to write of an NDIS packet: ndiscap logs
// 802.11 frames decrypted, so the Protected bit of the frame control is
// cleared for Wireshark to dissect the body (etl2pcapng does the same),
// in a copy that leaves the event's payload as it was.
func (c *Converter) ndisData(p *netcap.Packet) []byte {
	data := p.Data
	if p.Link == netcap.LinkIEEE80211 && len(data) > 1 && data[1]&0x40 != 0 {
		c.buf80211 = append(c.buf80211[:0], data...)
		data = c.buf80211
		data[1] &^= 0x40
	}
	return data
}

// ndisComment renders an NDIS packet's comment as etl2pcapng does: the
// process and thread, then the switch port or the 802.11 metadata.
func (c *Converter) ndisComment(p *netcap.Packet) string {
	ev := p.Event
	comment := append(c.comment[:0], "PID="...)
	comment = strconv.AppendUint(comment, uint64(ev.ProcessID), 10)
	comment = append(comment, " TID="...)
	comment = strconv.AppendUint(comment, uint64(ev.ThreadID), 10)
	switch {
	case p.VMSwitch != nil:
		vms := p.VMSwitch
		comment = append(comment, " VlanId="...)
		comment = strconv.AppendUint(comment, uint64(vms.VLAN), 10)
		comment = append(comment, " SrcPortId="...)
		comment = strconv.AppendUint(comment, uint64(vms.Port), 10)
		comment = append(comment, " SrcNicType="...)
		comment = append(comment, vms.NICType...)
		comment = append(comment, " SrcNicName="...)
		comment = append(comment, vms.NICName...)
		comment = append(comment, " SrcPortName="...)
		comment = append(comment, vms.PortName...)
		if vms.Destinations > 0 {
			comment = append(comment, " DstNicCount="...)
			comment = strconv.AppendUint(comment, vms.Destinations, 10)
		}
		comment = fmt.Appendf(comment, " HashValue=%08x", vms.Hash)
	case p.WLAN != nil:
		m := p.WLAN
		comment = fmt.Appendf(comment, " Packet Metadata: ReceiveFlags:0x%x, PhyType:%s, CenterCh:%d, NumMPDUsReceived:%d, RSSI:%d, DataRate:%d",
			m.ReceiveFlags, m.PhyName(), m.CenterFreq, m.MPDUs, m.RSSI, m.DataRate)
	}
	c.comment = comment
	return string(comment)
}
