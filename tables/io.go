package tables

import (
	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/netcap"
)

// needsIODecode reports whether the second pass decodes ev for the disk
// I/O, the files' names or the packets.
func needsIODecode(ev *etl.Event) bool {
	if netcap.IsPacketEvent(ev) {
		return true
	}
	if ev.Flags&etl.FlagClassicHeader == 0 {
		return false
	}
	switch ev.ProviderID {
	case catalog.DiskIoGUID:
		op := ev.Descriptor.Opcode
		return op == catalog.DiskIoRead || op == catalog.DiskIoWrite
	case catalog.FileIoGUID:
		return catalog.IsFileIoName(ev.Descriptor.Opcode)
	}
	return false
}

// observeIO writes the row of a disk read or write, keeps the names of
// file objects and hands packet events to the packets table, also those
// without a schema (netcap has PktMon's and NDIS's layouts). Its error
// stops the pipeline's run (Config.Observe), so nothing is written after
// one.
func (t *traceState) observeIO(ev *etl.Event, res *decode.Result) error {
	if t.pk != nil && netcap.IsPacketEvent(ev) {
		return t.pk.event(ev, res)
	}
	if res == nil || res.Decoded == nil {
		return nil
	}
	if ev.Flags&etl.FlagClassicHeader == 0 {
		return nil
	}
	d := res.Decoded
	switch ev.ProviderID {
	case catalog.FileIoGUID:
		if fo, ok := d.Uint("FileObject"); ok && catalog.IsFileIoName(ev.Descriptor.Opcode) {
			if name, _ := d.String("FileName"); name != "" && t.names[fo] != name {
				t.names[fo] = name
			}
		}
		return nil
	case catalog.DiskIoGUID:
	default:
		return nil
	}
	op := ev.Descriptor.Opcode
	if op != catalog.DiskIoRead && op != catalog.DiskIoWrite {
		return nil
	}
	r := DiskIORow{Trace: t.id, TS: etl.FiletimeUnixNano(ev.Time), Write: op == catalog.DiskIoWrite}
	disk, _ := d.Uint("DiskNumber")
	r.Disk = uint32(disk)
	r.Bytes, _ = d.Uint("TransferSize")
	r.Offset, _ = d.Uint("ByteOffset")
	r.LatencyMS, _ = analysis.DiskResponseMS(ev, d, t.files)
	pid, tid, p := t.m.EventProcess(ev, res)
	if p != nil {
		r.Upid = t.upids[p]
	}
	if tid != 0 && tid != 0xFFFFFFFF {
		if th := t.m.Thread(tid, etl.FiletimeToTime(ev.Time)); th != nil && th.PID == pid {
			r.Utid = t.utids[th]
		}
	}
	if fo, ok := d.Uint("FileObject"); ok && fo != 0 {
		r.FileID, _ = assign(t.fileIDs, fo, &t.w.file)
	}
	return t.w.diskIO.add(&r)
}

// writeFiles writes the file objects the disk I/O named, with the last
// name the trace gave each.
func (t *traceState) writeFiles() error {
	rows := make([]FileRow, 0, len(t.fileIDs))
	for fo, id := range t.fileIDs {
		rows = append(rows, FileRow{Trace: t.id, FileID: id, FileObject: fo, Name: t.names[fo]})
	}
	sortByID(rows, func(r *FileRow) int64 { return r.FileID })
	for i := range rows {
		if err := t.w.files.add(&rows[i]); err != nil {
			return err
		}
	}
	return nil
}
