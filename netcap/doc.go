// Package netcap turns the packet events of ETW traces into packets:
// Microsoft-Windows-PktMon's packet and drop events and
// Microsoft-Windows-NDIS-PacketCapture's packet fragments, reassembled.
// It is the one reader of those events: package pcapng writes its packets
// as pcapng, and the report counts them, so both see the same packets.
//
// A [Source] takes events with their decoded properties (package decode)
// and calls back with each [Packet]: its bytes, link type, direction,
// interface (numbered in order of first use, as pcapng numbers them) and
// what the event says of it (PktMon's component, drop reason and
// location; NDIS's interface indexes, Hyper-V switch port, 802.11
// metadata). [ParseHeaders] reads a packet's Ethernet, 802.11, IP, TCP
// and UDP headers (addresses, ports, protocol), bounds-checked.
package netcap
