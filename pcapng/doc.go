// Package pcapng turns the packet captures of ETW traces into pcapng
// files for Wireshark: PktMon's captures (pktmon start --capture,
// Microsoft-Windows-PktMon) and NDIS packet captures (netsh trace start
// capture=yes, Microsoft-Windows-NDIS-PacketCapture), on any OS.
//
// # Writing pcapng
//
// [Writer] writes one section: a Section Header Block, then Interface
// Description Blocks ([Writer.AddInterface]: link type, if_name,
// if_description, addresses, if_tsresol 7 for 100 ns timestamps) and
// Enhanced Packet Blocks ([Writer.WritePacket]: captured and original
// lengths, epb_flags direction, opt_comment, epb_packetid, epb_verdict).
// pcapng lets an interface be described anywhere before its first packet,
// so the writer streams: nothing is held back, and an interface is added
// when its first packet comes. [Reader] reads such files back.
//
// # Converting traces
//
// [Converter] takes events (with their decoded properties, from package
// decode) and writes their packets, as package netcap reads them (the
// report counts the same packets through netcap); [Convert] runs it over
// .etl files.
//
//   - PktMon: one packet per packet event (160; 170 and 240 drops; the
//     short 200-230 forms), its bytes the event's Payload, its original
//     length OriginalPayloadSize, its time the event's, its direction
//     from DirTag, its link type from PacketType (Ethernet, 802.11, raw
//     IP), its packet id PktGroupId, drops marked with an XDP_DROP
//     verdict, and a comment in pktmon's words ("PktGroupId …, PktNumber
//     …, Appearance …, Direction Rx, Type Ethernet, Component 79, Edge 1,
//     Filter 0, OriginalSize 179, LoggedSize 128"; drops add DropReason
//     and DropLocation). One interface per component and link type,
//     named from pktmon's component list (name, description, MAC and IP
//     addresses). As pktmon's etl2pcap, drops are left out unless asked
//     for ([Options].DropOnly, IncludeDrops) and [Options].Components
//     keeps chosen components.
//   - NDIS: fragments (PacketStart/PacketEnd keywords) reassembled per
//     interface; one interface per LowerIfIndex and medium (and switch
//     port and VLAN for Hyper-V switch events), named as
//     microsoft/etl2pcapng names them; comments with the process and
//     thread, 802.11 receive metadata or the switch port; the original
//     length of truncated packets taken from their IP header.
//
// A damaged buffer costs only the packets it held ([Stats].Errors).
package pcapng
