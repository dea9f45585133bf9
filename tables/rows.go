package tables

// The rows of each table. Column names and types are the documented
// schema (docs/tables.md): change them only with the document. Ids are
// 1-based and unique across the traces of one Writer; an id column that
// is 0 is written as NULL (the optional columns), as are the optional
// times and strings that are zero or empty.

// TraceRow is one input trace (table traces).
type TraceRow struct {
	Trace        int32  `parquet:"trace"`
	Name         string `parquet:"name"`
	Files        int32  `parquet:"files"`
	Start        int64  `parquet:"start,optional,timestamp(nanosecond)"`
	End          int64  `parquet:"end,optional,timestamp(nanosecond)"`
	Events       int64  `parquet:"events"`
	IntervalFrom string `parquet:"interval_from"`
}

// ProcessRow is one process record (table processes).
type ProcessRow struct {
	Trace         int32  `parquet:"trace"`
	Upid          int64  `parquet:"upid"`
	PID           uint32 `parquet:"pid"`
	Name          string `parquet:"name"`
	ImageFileName string `parquet:"image_file_name,optional"`
	CommandLine   string `parquet:"command_line,optional"`
	Start         int64  `parquet:"start,optional,timestamp(nanosecond)"`
	End           int64  `parquet:"end,optional,timestamp(nanosecond)"`
	ParentPID     uint32 `parquet:"parent_pid"`
	ParentUpid    int64  `parquet:"parent_upid,optional"`
	Exited        bool   `parquet:"exited"`
	ExitStatus    int32  `parquet:"exit_status"`
	Events        int64  `parquet:"events"`
	CPUSamples    int64  `parquet:"cpu_samples"`
}

// ThreadRow is one thread record (table threads).
type ThreadRow struct {
	Trace int32  `parquet:"trace"`
	Utid  int64  `parquet:"utid"`
	TID   uint32 `parquet:"tid"`
	Upid  int64  `parquet:"upid"`
	Start int64  `parquet:"start,optional,timestamp(nanosecond)"`
	End   int64  `parquet:"end,optional,timestamp(nanosecond)"`
	Name  string `parquet:"name,optional"`
}

// ImageRow is one image mapped in a process or in the kernel (table
// images).
type ImageRow struct {
	Trace         int32  `parquet:"trace"`
	ImageID       int64  `parquet:"image_id"`
	Upid          int64  `parquet:"upid,optional"`
	Kernel        bool   `parquet:"kernel"`
	Base          uint64 `parquet:"base"`
	Size          uint64 `parquet:"size"`
	Path          string `parquet:"path"`
	FileName      string `parquet:"file_name"`
	TimeDateStamp uint32 `parquet:"time_date_stamp"`
	Checksum      uint32 `parquet:"checksum"`
	PDBName       string `parquet:"pdb_name,optional"`
	PDBGUID       string `parquet:"pdb_guid,optional"`
	PDBAge        uint32 `parquet:"pdb_age"`
	Load          int64  `parquet:"load,optional,timestamp(nanosecond)"`
	Unload        int64  `parquet:"unload,optional,timestamp(nanosecond)"`
}

// MethodRow is one .NET method placed in a process (table methods).
type MethodRow struct {
	Trace       int32  `parquet:"trace"`
	MethodID    int64  `parquet:"method_id"`
	Upid        int64  `parquet:"upid,optional"`
	Address     uint64 `parquet:"address"`
	Size        uint32 `parquet:"size"`
	Name        string `parquet:"name"`
	Namespace   string `parquet:"namespace"`
	MethodName  string `parquet:"method_name"`
	Signature   string `parquet:"signature,optional"`
	Token       uint32 `parquet:"token"`
	CLRMethodID uint64 `parquet:"clr_method_id"`
	CLRModuleID uint64 `parquet:"clr_module_id"`
}

// FrameRow is one distinct code location of the stacks (table frames).
type FrameRow struct {
	Trace    int32  `parquet:"trace"`
	FrameID  int64  `parquet:"frame_id"`
	ImageID  int64  `parquet:"image_id,optional"`
	MethodID int64  `parquet:"method_id,optional"`
	Address  uint64 `parquet:"address"`
	RVA      uint64 `parquet:"rva"`
	Name     string `parquet:"name"`
	Function string `parquet:"function,optional"`
	File     string `parquet:"file,optional"`
	Line     int32  `parquet:"line,optional"`
}

// StackRow is one node of the stacks' prefix tree (table stacks): the
// stack made of its parent's frames (outermost first) and then frame.
type StackRow struct {
	Trace    int32 `parquet:"trace"`
	StackID  int64 `parquet:"stack_id"`
	ParentID int64 `parquet:"parent_id,optional"`
	FrameID  int64 `parquet:"frame_id"`
	Depth    int32 `parquet:"depth"`
}

// SampleRow is one CPU sample (table samples).
type SampleRow struct {
	Trace    int32   `parquet:"trace"`
	TS       int64   `parquet:"ts,timestamp(nanosecond)"`
	CPU      int32   `parquet:"cpu"`
	Utid     int64   `parquet:"utid,optional"`
	StackID  int64   `parquet:"stack_id,optional"`
	WeightMS float64 `parquet:"weight_ms"`
}

// GCRow is one .NET garbage collection (table gcs).
type GCRow struct {
	Trace      int32   `parquet:"trace"`
	Upid       int64   `parquet:"upid"`
	Number     uint32  `parquet:"number"`
	Generation uint32  `parquet:"generation"`
	Reason     uint32  `parquet:"reason"`
	Type       uint32  `parquet:"type"`
	Start      int64   `parquet:"start,timestamp(nanosecond)"`
	PauseMS    float64 `parquet:"pause_ms"`
	DurationMS float64 `parquet:"duration_ms"`
}

// DiskIORow is one disk read or write (table disk_io), at its
// completion.
type DiskIORow struct {
	Trace     int32   `parquet:"trace"`
	TS        int64   `parquet:"ts,timestamp(nanosecond)"`
	Utid      int64   `parquet:"utid,optional"`
	Upid      int64   `parquet:"upid,optional"`
	Disk      uint32  `parquet:"disk"`
	Write     bool    `parquet:"write"`
	Bytes     uint64  `parquet:"bytes"`
	Offset    uint64  `parquet:"offset"`
	LatencyMS float64 `parquet:"latency_ms,optional"`
	FileID    int64   `parquet:"file_id,optional"`
}

// FileRow is one kernel file object the I/O names (table files).
type FileRow struct {
	Trace      int32  `parquet:"trace"`
	FileID     int64  `parquet:"file_id"`
	FileObject uint64 `parquet:"file_object"`
	Name       string `parquet:"name,optional"`
}

// PacketRow is one captured packet (table packets).
type PacketRow struct {
	Trace        int32  `parquet:"trace"`
	TS           int64  `parquet:"ts,timestamp(nanosecond)"`
	Source       string `parquet:"source"`
	Component    string `parquet:"component,optional"`
	ComponentID  int32  `parquet:"component_id,optional"`
	Direction    string `parquet:"direction,optional"`
	Size         int64  `parquet:"size"`
	OriginalSize int64  `parquet:"original_size"`
	Dropped      bool   `parquet:"dropped"`
	DropReason   string `parquet:"drop_reason,optional"`
	PacketID     uint64 `parquet:"packet_id,optional"`
}
