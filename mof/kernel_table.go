package mof

// kernelTable lists the built-in classic event layouts in the line
// language of compileTable (kernel.go). The MSNT_SystemTrace part holds
// every class and version of the NT Kernel Logger event classes, written
// from the field tables of ../shared/docs/kernel-mof-classes.md (which
// tabulate a Windows 11-era wmicore.mof), with these deliberate changes,
// each backed by real traces:
//
//   - Image v0 and v1 declare only Load (10); UnLoad, DCStart and DCEnd
//     events of those versions exist (syzygy test data) and use the Load
//     layout, as TraceEvent reads them.
//   - Thread v3 Start/End/DCStart/DCEnd end with an optional ThreadName:
//     Windows 10 1809+ logs version-3 thread events with the v4 name
//     appended (74+ bytes; tracerpt with an older MOF reports 15005),
//     Windows 8 logs the 72-byte form. A rest-of-payload UTF-16 string
//     decodes both.
//   - ThreadMigration's IdealProcessorAdjust is a 1-byte BOOLEAN (the
//     12-byte layout keeps the next UINT16 aligned), not TDH's 4-byte
//     Boolean.
//   - PageFault HRRundown exists in versions 2, 3 and 4: wmicore.mof
//     puts EventVersion(3) and (4) on the _V3 and _V4 event type classes.
//   - StackWalk events carry only the frames captured. Stack lists its
//     Stack1… pointers as optional trailing fields ("tail"), up to
//     Stack192 rather than the class's Stack32 (the kernel captures up to
//     192 frames, the depth the Key* classes declare; net.4.5.2.x64.etl
//     has 40-frame stacks). KeyCreate/KeyDelete/KeyRundown, declared with
//     192 frames, take as many StackFrame pointers as the payload holds
//     ("[]").
//   - EventTrace PartitionInfoExtension: wmicore.mof gives the GUID
//     layout EventVersion(0) and the string layout
//     (PartitionInfoExtensionV2) EventVersion(2) on the event type
//     classes, but Windows 10 logs the GUID layout as version 2 (the
//     EventTrace class version; tracerpt decodes it as
//     PartitionInfoExtension, mytrace.xml). Version 2 has the GUID layout
//     with the string layout as an alternate, tried when the GUID layout
//     does not fit; version 0 keeps the GUID layout as the MOF says.
//
// The sections for older releases and for KernelTraceControl at the end
// are described there.
const kernelTable = `
# NT Kernel Logger classes (provider class MSNT_SystemTrace).
provider MSNT_SystemTrace
class EventTrace 68fdd900-4a3e-11d1-84f4-0000f80464e3
version 0  # EventTraceEvent_V0
0=Header | BufferSize u32; Version u32; ProviderVersion u32; NumberOfProcessors u32; EndTime u64; TimerResolution u32; MaxFileSize u32; LogFileMode x32; BuffersWritten u32; StartBuffers u32; PointerSize u32; EventsLost u32; CPUSpeed u32; LoggerName ptr; LogFileName ptr; TimeZoneInformation u8![176]; BootTime u64; PerfFreq u64; StartTime u64; ReservedFlags x32; BuffersLost u32; SessionNameString wstr; LogFileNameString wstr
5=Extension,32=EndExtension | GroupMask1 x32; GroupMask2 x32; GroupMask3 x32; GroupMask4 x32; GroupMask5 x32; GroupMask6 x32; GroupMask7 x32; GroupMask8 x32
8=RDComplete | 
# wmicore.mof's Header_PartitionInfoExtension_TypeGroup carries EventVersion(0) itself.
80=PartitionInfoExtension | EventVersion u16; Reserved u16; PartitionType u32; QpcOffsetFromRoot i64; PartitionId guid; ParentId guid
version 1  # EventTraceEvent_V1
0=Header | BufferSize u32; Version u32; ProviderVersion u32; NumberOfProcessors u32; EndTime u64; TimerResolution u32; MaxFileSize u32; LogFileMode x32; BuffersWritten u32; StartBuffers u32; PointerSize u32; EventsLost u32; CPUSpeed u32; LoggerName ptr; LogFileName ptr; TimeZoneInformation u8![176]; BootTime u64; PerfFreq u64; StartTime u64; ReservedFlags x32; BuffersLost u32; SessionNameString wstr; LogFileNameString wstr
5=Extension,32=EndExtension | GroupMask1 x32; GroupMask2 x32; GroupMask3 x32; GroupMask4 x32; GroupMask5 x32; GroupMask6 x32; GroupMask7 x32; GroupMask8 x32
8=RDComplete | 
version 2  # EventTraceEvent
0=Header | BufferSize u32; Version u32; ProviderVersion u32; NumberOfProcessors u32; EndTime u64; TimerResolution u32; MaxFileSize u32; LogFileMode x32; BuffersWritten u32; StartBuffers u32; PointerSize u32; EventsLost u32; CPUSpeed u32; LoggerName ptr; LogFileName ptr; TimeZoneInformation u8![176]; BootTime u64; PerfFreq u64; StartTime u64; ReservedFlags x32; BuffersLost u32; SessionNameString wstr; LogFileNameString wstr
5=Extension,32=EndExtension | GroupMask1 x32; GroupMask2 x32; GroupMask3 x32; GroupMask4 x32; GroupMask5 x32; GroupMask6 x32; GroupMask7 x32; GroupMask8 x32; KernelEventVersion x32
8=RDComplete | 
64=DbgIdRSDS | Guid guid; Age u32; PdbName str
66=BuildInfo | BuildString str
67=ProviderBinaryPath | GuidCount u32; Guid guid[GuidCount]; BinaryPath wstr
80=PartitionInfoExtension | EventVersion u16; Reserved u16; PartitionType u32; QpcOffsetFromRoot i64; PartitionId guid; ParentId guid
alt 80=PartitionInfoExtensionV2 | EventVersion u16; Reserved u16; PartitionType u32; QpcOffsetFromRoot i64; PartitionId wstr; ParentId wstr
82=LastDroppedTimes | TimeStampCount u32; Padding u32; TimeStamp u64[TimeStampCount]

class Process 3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c
version 0  # Process_V0
1=Start,2=End,3=DCStart,4=DCEnd | ProcessId ptr; ParentId ptr; UserSID sid; ImageFileName str
version 1  # Process_V1
1=Start,2=End,3=DCStart,4=DCEnd | PageDirectoryBase ptr; ProcessId x32; ParentId x32; SessionId u32; ExitStatus i32; UserSID sid; ImageFileName str
version 2  # Process_V2
1=Start,2=End,3=DCStart,4=DCEnd,39=Defunct | UniqueProcessKey ptr; ProcessId x32; ParentId x32; SessionId u32; ExitStatus i32; UserSID sid; ImageFileName str; CommandLine wstr
11=Terminate | ProcessId x32
32=PerfCtr,33=PerfCtrRundown | ProcessId x32; PageFaultCount u32; HandleCount u32; Reserved u32; PeakVirtualSize sizet; PeakWorkingSetSize sizet; PeakPagefileUsage sizet; QuotaPeakPagedPoolUsage sizet; QuotaPeakNonPagedPoolUsage sizet; VirtualSize sizet; WorkingSetSize sizet; PagefileUsage sizet; QuotaPagedPoolUsage sizet; QuotaNonPagedPoolUsage sizet; PrivatePageCount sizet
35=InSwap | DirectoryTableBase ptr; ProcessId x32
48=WakeChargeUser,49=WakeChargeExecution,50=WakeChargeKernel,51=WakeChargeInstrumentation,52=WakeChargePreserveProcess,64=WakeReleaseUser,65=WakeReleaseExecution,66=WakeReleaseKernel,67=WakeReleaseInstrumentation,68=WakeReleasePreserveProcess,80=WakeDropUser,81=WakeDropExecution,82=WakeDropKernel,83=WakeDropInstrumentation,84=WakeDropPreserveProcess | Object ptr; Tag ptr; ProcessId x32; Count u32
96=WakeEventUser,97=WakeEventExecution,98=WakeEventKernel,99=WakeEventInstrumentation | Object ptr
version 3  # Process_V3
1=Start,2=End,3=DCStart,4=DCEnd,39=Defunct | UniqueProcessKey ptr; ProcessId x32; ParentId x32; SessionId u32; ExitStatus i32; DirectoryTableBase ptr; UserSID sid; ImageFileName str; CommandLine wstr
version 4  # Process_V4
1=Start,2=End,3=DCStart,4=DCEnd,39=Defunct | UniqueProcessKey ptr; ProcessId x32; ParentId x32; SessionId u32; ExitStatus i32; DirectoryTableBase ptr; Flags u32; UserSID sid; ImageFileName str; CommandLine wstr; PackageFullName wstr; ApplicationId wstr
version 5  # Process
39=Defunct | UniqueProcessKey ptr; ProcessId x32; ParentId x32; SessionId u32; ExitStatus i32; DirectoryTableBase ptr; Flags u32; UserSID sid; ImageFileName str; CommandLine wstr; PackageFullName wstr; ApplicationId wstr; ExitTime u64

class Thread 3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c
version 0  # Thread_V0
1=Start,2=End,3=DCStart,4=DCEnd | TThreadId x32; ProcessId x32
version 1  # Thread_V1
1=Start,3=DCStart,4=DCEnd | ProcessId x32; TThreadId x32; StackBase ptr; StackLimit ptr; UserStackBase ptr; UserStackLimit ptr; StartAddr ptr; Win32StartAddr ptr; WaitMode i8
2=End | ProcessId x32; TThreadId x32
36=CSwitch | NewThreadId x32; OldThreadId x32; NewThreadPriority i8; OldThreadPriority i8; NewThreadQuantum i8; OldThreadQuantum i8; OldThreadWaitReason i8; OldThreadWaitMode i8; OldThreadState i8; OldThreadWaitIdealProcessor i8
57=WorkerThread | TThreadId x32; StartTime u64; ThreadRoutine ptr
version 2  # Thread_V2
1=Start,2=End,3=DCStart,4=DCEnd | ProcessId x32; TThreadId x32; StackBase ptr; StackLimit ptr; UserStackBase ptr; UserStackLimit ptr; StartAddr ptr; Win32StartAddr ptr; TebBase ptr; SubProcessTag x32
72=SetName | ProcessId x32; ThreadId x32; ThreadName wstr
36=CSwitch | NewThreadId x32; OldThreadId x32; NewThreadPriority i8; OldThreadPriority i8; PreviousCState u8; SpareByte i8; OldThreadWaitReason i8; OldThreadWaitMode i8; OldThreadState i8; OldThreadWaitIdealProcessor i8; NewThreadWaitTime x32; Reserved u32
37=CompCS | 
41=SpinLock | SpinLockAddress ptr; CallerAddress ptr; AcquireTime u64; ReleaseTime u64; WaitTimeInCycles u32; SpinCount u32; ThreadId u32; InterruptCount u32; Irql u8; AcquireDepth u8; Flag u8; Reserved u8[5]
50=ReadyThread | TThreadId x32; AdjustReason i8; AdjustIncrement i8; Flag i8; Reserved i8
53=ThreadAffinity | Affinity ptr; ThreadId x32; Group u16; Reserved u16
57=WorkerThread | TThreadId x32; StartTime u64; ThreadRoutine ptr
60=AntiStarvationBoost | ThreadId x32; ProcessorIndex u16; Priority u8; Reserved u8
61=Thread Migration | ThreadId x32; SourceProcessorIndex u16; TargetProcessorIndex u16; Priority u8; IdealProcessorAdjust bool8; OldIdealProcessorIndex u16
62=Kernel Queue Enqueue | Entry ptr; ThreadId x32
63=Kernel Queue Dequeue | ThreadId x32; EntryCount u32; Entries ptr[EntryCount]
64=Start,65=End | CallbackRoutine ptr
66=AutoBoost Set Floor | Lock ptr; ThreadId x32; NewCpuPriorityFloor u8; OldCpuPriority u8; IoPriorities u8; BoostFlags u8
67=AutoBoost Clear Floor | LockAddress ptr; ThreadId x32; BoostBitmap u32
68=AutoBoost Entry Exhaustion | LockAddress ptr; ThreadId x32
69=SubProcessTag Changed | OldTag x32; NewTag x32
version 3  # Thread_V3
1=Start,2=End,3=DCStart,4=DCEnd | ProcessId x32; TThreadId x32; StackBase ptr; StackLimit ptr; UserStackBase ptr; UserStackLimit ptr; Affinity ptr; Win32StartAddr ptr; TebBase ptr; SubProcessTag x32; BasePriority u8; PagePriority u8; IoPriority u8; ThreadFlags u8; ThreadName wstr*
48=SetPriority,49=SetBasePriority,51=SetPagePriority,52=SetIoPriority | ThreadId x32; OldPriority u8; NewPriority u8; Reserved u16
36=CSwitch | NewThreadId x32; OldThreadId x32; NewThreadPriority i8; OldThreadPriority i8; PreviousCState u8; SpareByte i8; OldThreadWaitReason i8; ThreadFlags i8; OldThreadState i8; OldThreadWaitIdealProcessor i8; NewThreadWaitTime x32; Reserved u32
version 4  # Thread_V4
1=Start,2=End,3=DCStart,4=DCEnd | ProcessId x32; TThreadId x32; StackBase ptr; StackLimit ptr; UserStackBase ptr; UserStackLimit ptr; Affinity ptr; Win32StartAddr ptr; TebBase ptr; SubProcessTag x32; BasePriority u8; PagePriority u8; IoPriority u8; ThreadFlags u8; ThreadName wstr
36=CSwitch | NewThreadId x32; OldThreadId x32; NewThreadPriority i8; OldThreadPriority i8; PreviousCState u8; SpareByte i8; OldThreadWaitReason i8; ThreadFlags i8; OldThreadState i8; OldThreadWaitIdealProcessor i8; NewThreadWaitTime x32; Reserved u32

class Power e43445e0-0903-48c3-b878-ff0fccebdd04
version 2  # PowerEvents
60=IdleExitLatency | Flags u32; PlatformState u32; ProcessorState u32; ReturnLatency u32; TotalLatency u32

class DiskIo 3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c
version 0  # DiskIo_V0
10=Read,11=Write | DiskNumber u32; IrpFlags x32; TransferSize u32; Reserved u32; ByteOffset u64; FileObject ptr
version 1  # DiskIo_V1
10=Read,11=Write | DiskNumber u32; IrpFlags x32; TransferSize u32; ResponseTime u32; ByteOffset u64; FileObject ptr; HighResResponseTime u64
34=DrvMjFnCall | UniqMatchId u32; RoutineAddr ptr; Irp ptr; MajorFunction u32; MinorFunction u32; FileObject ptr
35=DrvMjFnRet | UniqMatchId u32; Irp ptr
52=DrvComplReq | RoutineAddr ptr; Irp ptr; UniqMatchId u32
53=DrvComplReqRet | Irp ptr; UniqMatchId u32
version 2  # DiskIo_V2
10=Read,11=Write | DiskNumber u32; IrpFlags x32; TransferSize u32; Reserved u32; ByteOffset u64; FileObject ptr; Irp ptr; HighResResponseTime u64
12=ReadInit,13=WriteInit,15=FlushInit | Irp ptr
14=FlushBuffers | DiskNumber u32; IrpFlags x32; HighResResponseTime u64; Irp ptr
34=DrvMjFnCall | MajorFunction u32; MinorFunction u32; RoutineAddr ptr; FileObject ptr; Irp ptr; UniqMatchId u32
35=DrvMjFnRet | Irp ptr; UniqMatchId u32
37=DrvComplRout | Routine ptr; IrpPtr ptr; UniqMatchId u32
52=DrvComplReq | RoutineAddr ptr; Irp ptr; UniqMatchId u32
53=DrvComplReqRet | Irp ptr; UniqMatchId u32
version 3  # DiskIo
10=Read,11=Write,55=OpticalRead,56=OpticalWrite | DiskNumber u32; IrpFlags x32; TransferSize u32; Reserved u32; ByteOffset u64; FileObject ptr; Irp ptr; HighResResponseTime u64; IssuingThreadId u32
14=FlushBuffers,57=OpticalFlushBuffers | DiskNumber u32; IrpFlags x32; HighResResponseTime u64; Irp ptr; IssuingThreadId u32
12=ReadInit,13=WriteInit,15=FlushInit,58=OpticalReadInit,59=OpticalWriteInit,60=OpticalFlushInit | Irp ptr; IssuingThreadId u32

class Registry ae53722e-c863-11d2-8659-00c04fa321a1
version 0  # Registry_V0
10=Create,11=Open,12=Delete,13=Query,14=SetValue,15=DeleteValue,16=QueryValue,17=EnumerateKey,18=EnumerateValueKey,19=QueryMultipleValue,20=SetInformation,21=Flush | Status ptr; KeyHandle ptr; ElapsedTime i64; KeyName wstr
version 1  # Registry_V1
10=Create,11=Open,12=Delete,13=Query,14=SetValue,15=DeleteValue,16=QueryValue,17=EnumerateKey,18=EnumerateValueKey,19=QueryMultipleValue,20=SetInformation,21=Flush,22=RunDown | Status ptr; KeyHandle ptr; ElapsedTime i64; Index u32; KeyName wstr
version 2  # Registry
10=Create,11=Open,12=Delete,13=Query,14=SetValue,15=DeleteValue,16=QueryValue,17=EnumerateKey,18=EnumerateValueKey,19=QueryMultipleValue,20=SetInformation,21=Flush,22=KCBCreate,23=KCBDelete,24=KCBRundownBegin,25=KCBRundownEnd,26=Virtualize,27=Close,28=SetSecurity,29=QuerySecurity | InitialTime i64; Status u32; Index u32; KeyHandle ptr; KeyName wstr
30=TxRCommit,31=TxRPrepare,32=TxRRollback | TxrGUID guid; Status u32; UowCount u32; OperationTime u64; Hive wstr
34=Counters | Counter1 u64; Counter2 u64; Counter3 u64; Counter4 u64; Counter5 u64; Counter6 u64; Counter7 u64; Counter8 u64; Counter9 u64; Counter10 u64; Counter11 u64
35=Config | CurrentControlSet u32
36=HiveInit | Hive ptr; OperationType u32; PoolTag u32; Size u32; FileName wstr
37=HiveDestroy | Hive ptr; FileName wstr; Path wstr
38=HiveLink | Hive ptr; Path wstr
39=HiveDCEnd | Size u64; Hive ptr; LoadedKeyCount u32; FileName wstr; LinkPath wstr
40=HiveDirty | Hive ptr; LinkPath wstr; DirtyReason u32
48=ChangeNotify | Notification ptr; KeyHandle ptr; Type u8; WatchSubtree u8; Primary u8

class SplitIo d837ca92-12b9-44a5-ad6a-3a65b3578aa8
version 2  # SplitIo
32=VolMgr | ParentIrp ptr; ChildIrp ptr

class FileIo 90cbdc39-4a3e-11d1-84f4-0000f80464e3
version 0  # FileIo_V0
0=Name | FileObject ptr; FileName wstr
version 1  # FileIo_V1
0=Name,32=FileCreate | FileObject ptr; FileName wstr
version 2  # FileIo_V2
0=Name,32=FileCreate,35=FileDelete,36=FileRundown | FileObject ptr; FileName wstr
64=Create | IrpPtr ptr; TTID ptr; FileObject ptr; CreateOptions u32; FileAttributes u32; ShareAccess u32; OpenPath wstr
65=Cleanup,66=Close,73=Flush | IrpPtr ptr; TTID ptr; FileObject ptr; FileKey ptr
67=Read,68=Write | Offset u64; IrpPtr ptr; TTID ptr; FileObject ptr; FileKey ptr; IoSize u32; IoFlags u32
69=SetInfo,70=Delete,71=Rename,74=QueryInfo,75=FSControl | IrpPtr ptr; TTID ptr; FileObject ptr; FileKey ptr; ExtraInfo ptr; InfoClass u32
72=DirEnum,77=DirNotify | IrpPtr ptr; TTID ptr; FileObject ptr; FileKey ptr; Length u32; InfoClass u32; FileIndex u32; FileName wstr
76=OperationEnd | IrpPtr ptr; ExtraInfo ptr; NtStatus u32
37=MapFile,38=UnmapFile,39=MapFileDCStart,40=MapFileDCEnd | ViewBase ptr; FileObject ptr; MiscInfo x64; ViewSize sizet; ProcessId u32
version 3  # FileIo
0=Name,32=FileCreate,35=FileDelete,36=FileRundown | FileObject ptr; FileName wstr
64=Create | IrpPtr ptr; FileObject ptr; TTID u32; CreateOptions u32; FileAttributes u32; ShareAccess u32; OpenPath wstr
65=Cleanup,66=Close,73=Flush | IrpPtr ptr; FileObject ptr; FileKey ptr; TTID u32
67=Read,68=Write | Offset u64; IrpPtr ptr; FileObject ptr; FileKey ptr; TTID u32; IoSize u32; IoFlags u32
69=SetInfo,70=Delete,71=Rename,74=QueryInfo,75=FSControl | IrpPtr ptr; FileObject ptr; FileKey ptr; ExtraInfo ptr; TTID u32; InfoClass u32
72=DirEnum,77=DirNotify | IrpPtr ptr; FileObject ptr; FileKey ptr; TTID u32; Length u32; InfoClass u32; FileIndex u32; FileName wstr
76=OperationEnd | IrpPtr ptr; ExtraInfo ptr; NtStatus u32
79=DletePath,80=RenamePath,81=SetLinkPath | IrpPtr ptr; FileObject ptr; FileKey ptr; ExtraInfo ptr; TTID u32; InfoClass u32; FileName wstr
96=PreOpInit,97=PostOpInit | RoutineAddr ptr; FileObject ptr; FileContext ptr; IrpPtr ptr; CallbackDataPtr ptr; MajorFunction u32
98=PreOpCompletion,99=PostOpCompletion | InitialTime wmitime; RoutineAddr ptr; FileObject ptr; FileContext ptr; IrpPtr ptr; CallbackDataPtr ptr; MajorFunction u32
100=PreOpFailure,101=PostOpFailure | RoutineAddr ptr; FileObject ptr; FileContext ptr; IrpPtr ptr; CallbackDataPtr ptr; MajorFunction u32; Status x32

class TcpIp 9a280ac0-c8e0-11d1-84e2-00c04fb998a2
version 0  # TcpIp_V0
10=Send,11=Recv,12=Connect,13=Disconnect,14=Retransmit,15=Accept | daddr ip4; saddr ip4; dport port; sport port; size u32; PID u32
version 1  # TcpIp_V1
11=Recv | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; connid ptr; seqnum u32
13=Disconnect,14=Retransmit,16=Reconnect | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; connid ptr; seqnum u32
12=Connect,15=Accept | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; mss u16; sackopt u16; tsopt u16; wsopt u16; rcvwin u32; rcvwinscale i16; sndwinscale i16; connid ptr; seqnum u32
17=Fail | Proto u32
10=Send | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; startime u32; endtime u32; connid ptr; seqnum u32
18=TCPCopy,19=ARPCopy,20=FullACK,21=PartACK,22=DupACK | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; connid ptr; seqnum u32
version 2  # TcpIp
10=SendIPV4 | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; startime u32; endtime u32; seqnum u32; connid ptr
11=RecvIPV4,13=DisconnectIPV4,14=RetransmitIPV4,16=ReconnectIPV4,18=TCPCopyIPV4 | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; seqnum u32; connid ptr
12=ConnectIPV4,15=AcceptIPV4 | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; mss u16; sackopt u16; tsopt u16; wsopt u16; rcvwin u32; rcvwinscale i16; sndwinscale i16; seqnum u32; connid ptr
17=Fail | Proto u16; FailureCode u16
26=SendIPV6 | PID u32; size u32; daddr ip6; saddr ip6; dport port; sport port; startime u32; endtime u32; seqnum u32; connid ptr
27=RecvIPV6,29=DisconnectIPV6,30=RetransmitIPV6,32=ReconnectIPV6,34=TCPCopyIPV6 | PID u32; size u32; daddr ip6; saddr ip6; dport port; sport port; seqnum u32; connid ptr
28=ConnectIPV6,31=AcceptIPV6 | PID u32; size u32; daddr ip6; saddr ip6; dport port; sport port; mss u16; sackopt u16; tsopt u16; wsopt u16; rcvwin u32; rcvwinscale i16; sndwinscale i16; seqnum u32; connid ptr

class UdpIp bf3a50c5-a9c9-4988-a005-2df0b7c80f80
version 0  # UdpIp_V0
10=Send,11=Recv | context ptr; saddr ip4; sport port; size u16; daddr ip4; dport port; dsize u16
version 1  # UdpIp_V1
10=Send,11=Recv | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port
version 2  # UdpIp
10=SendIPV4,11=RecvIPV4 | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port; seqnum u32; connid ptr
17=Fail | Proto u16; FailureCode u16
26=SendIPV6,27=RecvIPV6 | PID u32; size u32; daddr ip6; saddr ip6; dport port; sport port; seqnum u32; connid ptr

class Image 2cb15d1d-5fc1-11d2-abe1-00a0c911f518
version 0  # Image_V0
# v0/v1 classes declare only Load; real logs also carry UnLoad/DCStart/DCEnd with the same layout.
10=Load,2=UnLoad,3=DCStart,4=DCEnd | BaseAddress ptr; ModuleSize u32; ImageFileName wstr
version 1  # Image_V1
10=Load,2=UnLoad,3=DCStart,4=DCEnd | ImageBase ptr; ImageSize ptr; ProcessId u32; FileName wstr
version 2  # Image_V2
10=Load,2=UnLoad,3=DCStart,4=DCEnd | ImageBase ptr; ImageSize ptr; ProcessId u32; ImageChecksum u32; TimeDateStamp u32; Reserved0 u32; DefaultBase ptr; Reserved1 u32; Reserved2 u32; Reserved3 u32; Reserved4 u32; FileName wstr
33=KernelBase | ImageBase ptr
34=HypercallPage | HypercallPageVa ptr
128=LoaderLockAttempt,129=LoaderLockAcquire,130=LoaderLockTriedAndFailed,131=LoaderLockWait,132=ProcessInitDone,133=CreateSectionBegin,134=CreateSectionEnd,135=MapViewBegin | 
144=RelocateImageBegin,145=RelocateImageEnd,146=HandleOldDescsBegin,147=HandleOldDescsEnd,148=HandleNewDescsBegin,149=HandleNewDescsEnd,150=DllMainExit | BaseAddress x64
160=FindDllByName,161=MapViewEnd,162=LoaderLockRelease,163=DllMainEnter,164=LoaderError | BaseAddress x64; ErrorOpcode x8; Code i8; String wstr
version 3  # Image
10=Load,2=UnLoad,3=DCStart,4=DCEnd | ImageBase ptr; ImageSize ptr; ProcessId u32; ImageChecksum u32; TimeDateStamp u32; SignatureLevel u8; SignatureType u8; Reserved0 u16; DefaultBase ptr; Reserved1 u32; Reserved2 u32; Reserved3 u32; Reserved4 u32; FileName wstr
165=MapViewStart,166=SnappingStart,167=SnappingEnd,168=LoadingStart,169=LoadingEnd,170=FoundKnownDll,171=AbnormalTermination,172=ModulePlaceHolder,173=ReadyToInit,174=ReadyToRun,208=ApiSetResolving,209=ApiSetHosted,210=ApiSetUnhosted,211=ApiSetUnresolved | BaseAddress x64; ErrorOpcode x8; Code i8; String wstr
192=DllSearchPathExternal,193=DllSearchPathInternal | BaseAddress x64; ErrorOpcode x8; Code i8; String1 wstr; String2 wstr
176=NewDllLoad,177=NewDllLoadAsData | NewDllBaseAddress ptr; ParentDllBaseAddress ptr; LoadReason x32; FilePath wstr
212=DllSearchResults | LdrLoadFlags x32; LdrSearchFlags x32; SearchInfo x32; LoadReason x32; FullDllName wstr
213=DllPathSearchResults | SearchInfo x32; Cwd wstr; AppDir wstr; DllDir wstr; DllLoadDir wstr

class PageFault 3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c
version 2  # PageFault_V2
10=TransitionFault,11=DemandZeroFault,12=CopyOnWrite,13=GuardPageFault,14=HardPageFault,15=AccessViolation | VirtualAddress ptr; ProgramCounter ptr
32=HardFault | InitialTime wmitime; ReadOffset x64; VirtualAddress ptr; FileObject ptr; TThreadId x32; ByteCount u32
100=HRRundown | HeapHandle ptr; HRFlags x32; HRPid x32; HRRangeCount u32
101=HRCreate | HeapHandle ptr; FirstRangeSize sizet; HRCreateFlags x32
102=HRReserve,103=HRRelease | HeapHandle ptr; HRAddress ptr; HRSize sizet
104=HRDestroy | HeapHandle ptr
105=ImageLoadBacked | FileObject ptr; DeviceChar x32; FileChar x16; LoadFlags x16
98=VirtualAlloc,99=VirtualFree | BaseAddress ptr; RegionSize sizet; ProcessId u32; Flags x32
128=VirtualAllocDCStart,129=VirtualAllocDCEnd | BaseAddress ptr; RegionSize sizet; ProcessId u32; Flags x32; CommitSizeInBytes sizet
127=VirtualRotate | BaseAddress ptr; SizeInBytes sizet; Flags u32
134=MemResetInfo | BaseAddress ptr; SizeInBytes sizet; Flags u32
# HRRundown carries its own EventVersion on the event type class: 3 under the v2 class, 4 under the v3 class.
version 3  # PageFault_HeapRangeRundown_V3
100=HRRundown | HeapHandle ptr; HRFlags x32; HRPid x32; HRRangeCount u32; Reserved u32
version 4  # PageFault_HeapRangeRundown_V4
100=HRRundown | HeapHandle ptr; HRFlags x32; HRPid x32; HRRangeCount u32; HRHeapTag u64

struct CounterCorruptionStatus | ProfileSource u32; LastKnownGoodTimestamp u64

class PerfInfo ce1dbfb4-137e-4da6-87b0-3f59aa102cbc
version 0  # PerfInfo_V0
34=Mark | Message str; Padding wchar[1]
version 1  # PerfInfo_V1
67=ISR,95=ISR-PASS | InitialTime wmitime; Routine ptr; ReturnValue u32
68=DPC,69=TimerDPC | InitialTime wmitime; Routine ptr
46=SampleProf | InstructionPointer ptr; ThreadId u32; Count u16
version 2  # PerfInfo_V2
46=SampleProf | InstructionPointer ptr; ThreadId u32; Count u16; Reserved u16
47=PmcCounterProf | InstructionPointer ptr; ThreadId u32; ProfileSource u16; Reserved u16
72=SetInterval,73=CollectionStart,74=CollectionEnd | Source u32; NewInterval u32; OldInterval u32
48=PmcCtrConfig | CounterCount u32; CounterName wstr[CounterCount]
49=PmcCtrConrruption | ProcessorNumber u32; CounterCount u32; CounterStatus @CounterCorruptionStatus[CounterCount]
75=CollectionStart,76=CollectionEnd | SpinLockSpinThreshold u32; SpinLockContentionSampleRate u32; SpinLockAcquireSampleRate u32
51=SysClEnter | SysCallAddress ptr
52=SysClExit | SysCallNtStatus x32
67=ISR,95=ISR-PASS | InitialTime wmitime; Routine ptr; ReturnValue u8; Vector u16; Reserved u8
50=ISR-MSI | InitialTime wmitime; Routine ptr; ReturnValue u8; Vector u16; Reserved u8; MessageNumber u32
92=ISR-Unexpected | Vector u16
66=ThreadedDPC,68=DPC,69=TimerDPC,70=IOTimer | InitialTime wmitime; Routine ptr
98=WdfDPC | Routine ptr
96=WdfISR,97=WdfPassiveISR | Routine ptr
103=WdfWorkItem | Routine ptr
58=DebuggerEnabled | 
93=IoStartTimer,94=IoStopTimer | DeviceObject ptr; TimerRoutine ptr
104=SetKTimer2,105=ExpireKTimer2 | DueTime u64; MaximumDueTime u64; Period u64; Timer ptr; Callback ptr; CallbackContext ptr; TimerFlags u8
106=CancelKTimer2 | Timer ptr
107=DisableKTimer2 | Timer ptr; DisableCallback ptr; DisableContext ptr; TimerFlags u8
108=FinalizeKTimer2 | Timer ptr; DisableCallback ptr; DisableContext ptr
114=KernelHypercall | CallCode u32; IsFast u8; IsNested u8
122=ContextRegistersAMD64 | Rip u64; Rax u64; Rcx u64; Rdx u64; Rbx u64; Rsp u64; Rbp u64; Rsi u64; Rdi u64; R8 u64; R9 u64; R10 u64; R11 u64; R12 u64; R13 u64; R14 u64; R15 u64
123=ContextRegistersARM64 | Cpsr u32; X0 u64; X1 u64; X2 u64; X3 u64; X4 u64; X5 u64; X6 u64; X7 u64; X8 u64; X9 u64; X10 u64; X11 u64; X12 u64; X13 u64; X14 u64; X15 u64; X16 u64; X17 u64; X18 u64; X19 u64; X20 u64; X21 u64; X22 u64; X23 u64; X24 u64; X25 u64; X26 u64; X27 u64; X28 u64; Fp u64; Lr u64; Sp u64; Pc u64
version 3  # PerfInfo
73=CollectionStart,74=CollectionEnd | Source u32; NewInterval u32; OldInterval u32; SourceName wstr
75=CollectionStart,76=CollectionEnd | SpinLockSpinThreshold u32; SpinLockContentionSampleRate u32; SpinLockAcquireSampleRate u32; SpinLockHoldThreshold u32

class StackWalk def2fe46-7bd6-4b80-bd94-f57fe20d0ce3
version 2  # StackWalk
tail 32=Stack | EventTimeStamp u64; StackProcess x32; StackThread u32; Stack{1..192} ptr
37=StackKeyKernel,38=StackKeyUser | EventTimeStamp u64; StackProcess x32; StackThread u32; StackKey ptr
34=KeyCreate,35=KeyDelete,36=KeyRundown | Key ptr; StackFrame ptr[]

class ALPC 45d8cccd-539f-4b72-a8b7-5c683142609a
version 2  # ALPC
33=ALPC-Send-Message | MessageID u32
34=ALPC-Receive-Message | MessageID u32
35=ALPC-Wait-For-Reply | MessageID u32
36=ALPC-Wait-For-New-Message | IsServerPort u32; PortName wstr
37=ALPC-Unwait | Status u32

class LostEvent 6a399ae0-4bc6-4de9-870b-3657f8947e7e
version 0  # Lost_Event
32=RTLostEvent,33=RTLostBuffer,34=RTLostFile | 

class SystemConfig 01853a65-418f-4f36-aefc-dc0f1d2fd235
version 0  # SystemConfig_V0
10=CPU | MHz u32; NumberOfProcessors u32; MemSize u32; PageSize u32; AllocationGranularity u32; ComputerName wchar[256]; DomainName wchar[132]; HyperThreadingFlag ptr
11=PhyDisk | DiskNumber u32; BytesPerSector u32; SectorsPerTrack u32; TracksPerCylinder u32; Cylinders u64; SCSIPort u32; SCSIPath u32; SCSITarget u32; SCSILun u32; Manufacturer wchar[256]; PartitionCount u32; WriteCacheEnabled u8; Pad u8; BootDriveLetter wchar[3]; Spare wchar[2]
12=LogDisk | StartOffset u64; PartitionSize u64; DiskNumber u32; Size u32; DriveType u32; DriveLetterString wchar[4]; Pad1 u32; PartitionNumber u32; SectorsPerCluster u32; BytesPerSector u32; Pad2 u32; NumberOfFreeClusters i64; TotalNumberOfClusters i64; FileSystem wchar[16]; VolumeExt u32
13=NIC | NICName wchar[256]; Index u32; PhysicalAddrLen u32; PhysicalAddr wchar[8]; Size u32; IpAddress i32; SubnetMask i32; DhcpServer i32; Gateway i32; PrimaryWinsServer i32; SecondaryWinsServer i32; DnsServer1 i32; DnsServer2 i32; DnsServer3 i32; DnsServer4 i32; Data u32
14=Video | MemorySize u32; XResolution u32; YResolution u32; BitsPerPixel u32; VRefresh u32; ChipType wchar[256]; DACType wchar[256]; AdapterString wchar[256]; BiosString wchar[256]; DeviceId wchar[256]; StateFlags x32
15=Services | ServiceName wchar[34]; DisplayName wchar[256]; ProcessName wchar[34]; ProcessId u32
16=Power | S1 u8; S2 u8; S3 u8; S4 u8; S5 u8; Pad1 u8; Pad2 u8; Pad3 u8
21=IRQ | IRQAffinity x64; IRQNum u32; DeviceDescriptionLen u32; DeviceDescription wstr
22=PnP | IDLength u32; DescriptionLength u32; FriendlyNameLength u32; DeviceID wstr; DeviceDescription wstr; FriendlyName wstr
version 1  # SystemConfig_V1
10=CPU | MHz u32; NumberOfProcessors u32; MemSize u32; PageSize u32; AllocationGranularity u32; ComputerName wchar[256]; DomainName wchar[132]; HyperThreadingFlag ptr
11=PhyDisk | DiskNumber u32; BytesPerSector u32; SectorsPerTrack u32; TracksPerCylinder u32; Cylinders u64; SCSIPort u32; SCSIPath u32; SCSITarget u32; SCSILun u32; Manufacturer wchar[256]; PartitionCount u32; WriteCacheEnabled u8; Pad u8; BootDriveLetter wchar[3]; Spare wchar[2]
12=LogDisk | StartOffset u64; PartitionSize u64; DiskNumber u32; Size u32; DriveType u32; DriveLetterString wchar[4]; Pad1 u32; PartitionNumber u32; SectorsPerCluster u32; BytesPerSector u32; Pad2 u32; NumberOfFreeClusters i64; TotalNumberOfClusters i64; FileSystem wchar[16]; VolumeExt u32
13=NIC | NICName wchar[256]; Index u32; PhysicalAddrLen u32; PhysicalAddr wchar[8]; Size u32; IpAddress i32; SubnetMask i32; DhcpServer i32; Gateway i32; PrimaryWinsServer i32; SecondaryWinsServer i32; DnsServer1 i32; DnsServer2 i32; DnsServer3 i32; DnsServer4 i32; Data u32
14=Video | MemorySize u32; XResolution u32; YResolution u32; BitsPerPixel u32; VRefresh u32; ChipType wchar[256]; DACType wchar[256]; AdapterString wchar[256]; BiosString wchar[256]; DeviceId wchar[256]; StateFlags x32
15=Services | ServiceName wchar[34]; DisplayName wchar[256]; ProcessName wchar[34]; ProcessId u32
16=Power | S1 u8; S2 u8; S3 u8; S4 u8; S5 u8; Pad1 u8; Pad2 u8; Pad3 u8
21=IRQ | IRQAffinity x64; IRQNum u32; DeviceDescriptionLen u32; DeviceDescription wstr
22=PnP | IDLength u32; DescriptionLength u32; FriendlyNameLength u32; DeviceID wstr; DeviceDescription wstr; FriendlyName wstr
version 2  # SystemConfig_V2
10=CPU | MHz u32; NumberOfProcessors u32; MemSize u32; PageSize u32; AllocationGranularity u32; ComputerName wchar[256]; DomainName wchar[134]; HyperThreadingFlag ptr
11=PhyDisk | DiskNumber u32; BytesPerSector u32; SectorsPerTrack u32; TracksPerCylinder u32; Cylinders u64; SCSIPort u32; SCSIPath u32; SCSITarget u32; SCSILun u32; Manufacturer wchar[256]; PartitionCount u32; WriteCacheEnabled u8; Pad u8; BootDriveLetter wchar[3]; Spare wchar[2]
12=LogDisk | StartOffset u64; PartitionSize u64; DiskNumber u32; Size u32; DriveType u32; DriveLetterString wchar[4]; Pad1 u32; PartitionNumber u32; SectorsPerCluster u32; BytesPerSector u32; Pad2 u32; NumberOfFreeClusters i64; TotalNumberOfClusters i64; FileSystem wchar[16]; VolumeExt u32; Pad3 u32
13=NIC | PhysicalAddr x64; PhysicalAddrLen u32; Ipv4Index u32; Ipv6Index u32; NICDescription wstr; IpAddresses wstr; DnsServerAddresses wstr
14=Video | MemorySize u32; XResolution u32; YResolution u32; BitsPerPixel u32; VRefresh u32; ChipType wchar[256]; DACType wchar[256]; AdapterString wchar[256]; BiosString wchar[256]; DeviceId wchar[256]; StateFlags x32
15=Services | ProcessId x32; ServiceState x32; SubProcessTag x32; ServiceName wstr; DisplayName wstr; ProcessName wstr
16=Power | S1 u8; S2 u8; S3 u8; S4 u8; S5 u8; Pad1 u8; Pad2 u8; Pad3 u8
17=Network | TcbTablePartitions u32; MaxHashTableSize u32; MaxUserPort u32; TcpTimedWaitDelay u32
18=OpticalDisk | DiskNumber u16; BusType u16; DeviceType u16; MediaType u16; StartingOffset u64; Size u64; NumberOfFreeBlocks u64; TotalNumberOfBlocks u64; NextWritableAddress u64; NumberOfSessions u32; NumberOfTracks u32; BytesPerSector u32; DiscStatus u16; LastSessionStatus u16; DriveLetter wstr; FileSystemName wstr; DeviceName str; ManufacturerName str
21=IRQ | IRQAffinity x64; IRQNum u32; DeviceDescriptionLen u32; DeviceDescription wstr
22=PnP | IDLength u32; DescriptionLength u32; FriendlyNameLength u32; DeviceID wstr; DeviceDescription wstr; FriendlyName wstr
23=IDEChannel | TargetId u32; DeviceType x32; DeviceTimingMode x32; LocationInformationLen u32; LocationInformation wstr
24=NumaNode | NodeCount u32; NodeMap u64[NodeCount]
25=Platform | SystemManufacturer wstr; SystemProductName wstr; BiosDate wstr; BiosVersion wstr
26=ProcessorGroup | GroupCount u32; Affinity ptr[GroupCount]
27=ProcessorNumber | ProcessorCount u32; ProcessorNumber x32[ProcessorCount]
28=DPI | MachineDPI u32; UserDPI u32
29=CodeIntegrity | CodeIntegrityInfo u32
30=TelemetryConfiguration | MachineId guid
31=Defragmentation | AlignmentClusters u64; AvgFreeSpaceSize u64; ClustersPerSlab u64; FragmentedDirectoryExtents u64; FragmentedExtents u64; FreeSpaceCount u64; LargestFreeSpaceSize u64; LastRunActualPurgeClusters u64; LastRunClustersTrimmed u64; LastRunFullDefragTime u64; LastRunTime u64; MFTSize u64; TotalClusters u64; TotalUsedClusters u64; AvgFragmentsPerFile u32; BytesPerCluster u32; DirectoryCount u32; FragmentedDirectories u32; FragmentedFiles u32; FragmentedSpace u32; HardwareIssue u32; InUseMFTRecords u32; InUseSlabs u32; LastRunActualPurgeSlabs u32; LastRunInitialBackedSlabs u32; LastRunPercentFragmentation u32; LastRunPinnedSlabs u32; LastRunPotentialPurgeSlabs u32; LastRunSpaceInefficientSlabs u32; LastRunTrimmedSlabs u32; LastRunUnknownEvictFailSlabs u32; LastRunVolsnapPinnedSlabs u32; MFTFragmentCount u32; MovableFiles u32; TotalMFTRecords u32; TotalSlabs u32; UnmovableFiles u32; VolumeId guid; VolumePathNames wstr
32=MobilePlatform | BootLoaderVersion wstr; FirmwareRevision wstr; FriendlyName wstr; HardwareRevision wstr; Manufacturer wstr; ManufacturerDisplayName wstr; ManufacturerModelName wstr; MobileOperatorDisplayName wstr; MobileOperatorName wstr; ModelName wstr; RadioHardwareRevision wstr; RadioSoftwareRevision wstr; ROMVersion wstr; SOCVersion wstr; HardwareVariant wstr
33=DeviceFamily | UAPInfo u64; DeviceFamily u32; DeviceForm u32
34=FlightIds | UpdateId wstr; FlightIdList wstr
35=Processors | ProcessorIndex u32; FeatureSet u32; ProcessorSpeed u32; ProcessorName wchar[64]; VendorIdentifier wchar[16]; ProcessorIdentifier wchar[128]
36=Virtualization Config Info | VbsEnabled u8; HvciEnabled u8; HyperVisorEnabled u8; Reserved u8
37=Boot Config Info | BootFlags u64; FirmwareType u32; SecureBootEnabled u8; SecureBootCapable u8; Reserved1 u8; Reserved2 u8
version 3  # SystemConfig_V3
10=CPU | MHz u32; NumberOfProcessors u32; MemSize u32; PageSize u32; AllocationGranularity u32; ComputerName wchar[256]; DomainName wchar[134]; HyperThreadingFlag ptr; HighestUserAddress ptr; ProcessorArchitecture u16; ProcessorLevel u16; ProcessorRevision u16; PaeEnabled u8; NxEnabled u8; MemorySpeed u32
21=IRQ | IRQAffinity x64; IRQGroup u16; Reserved u16; IRQNum u32; DeviceDescriptionLen u32; DeviceDescription wstr
15=Services | ProcessId x32; ServiceState x32; SubProcessTag x32; ServiceName wstr; DisplayName wstr; ProcessName wstr; LoadOrderGroup wstr; SvchostGroup wstr
22=PnP | IDLength u32; DescriptionLength u32; FriendlyNameLength u32; DeviceID wstr; DeviceDescription wstr; FriendlyName wstr; PdoName wstr
32=MobilePlatform | DeviceManufacturer wstr; DeviceManufacturerDisplayName wstr; DeviceModel wstr; DeviceModelDisplayName wstr; MobileOperator wstr; MobileOperatorDisplayName wstr; HardwareVersion wstr; SocVersion wstr; RadioHardwareVersion wstr; RadioSoftwareVersion wstr; BspVersion wstr; OemSoftwareVersion wstr
version 4  # SystemConfig_V4
22=PnP | ClassGuid guid; UpperFiltersCount u32; LowerFiltersCount u32; DeviceID wstr; DeviceDescription wstr; FriendlyName wstr; PdoName wstr; ServiceName wstr; UpperFilters wstr[UpperFiltersCount]; LowerFilters wstr[LowerFiltersCount]
32=MobilePlatform | DeviceManufacturer wstr; DeviceManufacturerDisplayName wstr; DeviceModel wstr; DeviceModelDisplayName wstr; MobileOperator wstr; SocVersion wstr; BspVersion wstr
version 5  # SystemConfig
22=PnP | ClassGuid guid; UpperFiltersCount u32; LowerFiltersCount u32; DevStatus u32; DevProblem u32; DeviceID wstr; DeviceDescription wstr; FriendlyName wstr; PdoName wstr; ServiceName wstr; UpperFilters wstr[UpperFiltersCount]; LowerFilters wstr[LowerFiltersCount]

class Debugger 13976d09-a327-438c-950b-7f03192815c7
version 2  # Debugger
32=DebugPrint | Component u32; Level u32; Message str

class Pool 0268a8b6-74fd-4302-9dd0-6e8f1795c0cf
version 2  # PoolTrace
32=PoolAllocation,34=PoolFree | Type u32; Tag x32; NumberOfBytes sizet; Entry ptr
33=SessionPoolAllocation,35=SessionPoolFree | Type u32; Tag x32; NumberOfBytes sizet; Entry ptr; SessionId u32
40=PoolSnapDCStart,41=PoolSnapDCEnd,42=BigPoolSnapDCStart,43=BigPoolSnapDCEnd,44=SessionPoolSnapDCStart,45=SessionPoolSnapDCEnd,46=SessionBigPoolSnapDCStart,47=SessionBigPoolSnapDCEnd | 

class Object 89497f50-effe-4440-8cf2-ce6b1cdcaca7
version 2  # ObTrace
32=CreateHandle,33=CloseHandle | Object ptr; Handle x32; ObjectType u16; ObjectName wstr
34=DuplicateHandle | Object ptr; SourceHandle x32; TargetHandle x32; TargetProcessId x32; ObjectType u16
36=TypeDCStart,37=TypeDCEnd | ObjectType u16; Reserved u16; TypeName wstr
38=HandleDCStart,39=HandleDCEnd | Object ptr; ProcessId x32; Handle x32; ObjectType u16; ObjectName wstr
48=CreateObject,49=DeleteObject | Object ptr; ObjectType u16
50=ReferenceObject,51=DereferenceObject | Object ptr; Tag x32; Count u32

class MMCSS f8f10121-b617-4a56-868b-9df1b27fe32c
version 0  # MMCSSTrace
32=Start,33=Stop,36=Sleep,37=SleepResp | 
34=Scheduler | ScheduledPID x32; ScheduledTID x32; SchedulingPriority u32; TaskIndex u32
35=Wakeup | Reason x32

struct LbrRecordEntry | FromAddress ptr; ToAddress ptr; Reserved ptr

class LBR 99134383-5248-43fc-834b-529454e75df3
version 2  # LBR_V2
32=LbrRecord | TimeStamp u64; ProcessId u32; ThreadId u32; Options u32; Entries @LbrRecordEntry[]

class UMS 9aec974b-5b8e-4118-9b92-3186d8002ce5
version 2  # UmsEvent
32=DSwitchStart | ProcessId x32; ScheduledThreadId x32; PrimaryThreadId x32; SwitchFlags x32
33=DSwitchEnd | ProcessId x32; ScheduledThreadId x32; PrimaryThreadId x32; SwitchFlags x32
34=ScheduledPark | ProcessId x32; ScheduledThreadId x32; ParkFlags x32
35=Disassociate | ProcessId x32; ScheduledThreadId x32; PrimaryThreadId x32; UmsApcControlFlags x32; Status x32
36=CSwitch | ScheduledThreadId x32; SwitchCount u32; KernelYieldCount u32; MixedYieldCount u32; YieldCount u32

# Layouts of older Windows releases (Windows XP/Server 2003 DDK and
# Windows 7 WDK wmicore.mof) that the newest MOF dropped or changed
# under the same type and version: new keys are primary, changed
# layouts are alternates, chosen by which one fits the payload.
class EventTrace 68fdd900-4a3e-11d1-84f4-0000f80464e3
version 0-1
alt 5=Extension,32=EndExtension | GroupMask{1..8} x32; KernelEventVersion x32

class Thread 3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c
version 1
alt 4=DCEnd | ProcessId x32; TThreadId x32
version 2
# wmicore.mof's 4-byte boolean, in case a producer wrote it so.
alt 61=Thread Migration | ThreadId x32; SourceProcessorIndex u16; TargetProcessorIndex u16; Priority u8; IdealProcessorAdjust bool; OldIdealProcessorIndex u16
version 1
alt 36=CSwitch | NewThreadId x32; OldThreadId x32; NewThreadPriority i8; OldThreadPriority i8; NewThreadQuantum i8; OldThreadQuantum i8; OldThreadWaitReason i8; OldThreadWaitMode i8; OldThreadState i8; OldThreadWaitIdealProcessor i8; NewThreadWaitTime x32

class DiskIo 3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c
version 0
alt 10=Read,11=Write | DiskNumber u32; IrpFlags x32; TransferSize u32; Reserved u32; ByteOffset u64; FileObject ptr; Irp ptr; HighResResponseTime u64
alt 10=Read,11=Write | DiskNumber u32; IrpFlags x32; TransferSize u32; ResponseTime u32; ByteOffset u64; FileObject ptr; HighResResponseTime u64
12=ReadInit,13=WriteInit,15=FlushInit | Irp ptr
14=FlushBuffers | DiskNumber u32; IrpFlags x32; HighResResponseTime u64; Irp ptr
34=DrvMjFnCall | MajorFunction u32; MinorFunction u32; RoutineAddr ptr; FileObject ptr; Irp ptr; UniqMatchId u32
35=DrvMjFnRet | Irp ptr; UniqMatchId u32
37=DrvComplRout | Routine ptr; IrpPtr ptr; UniqMatchId u32
52=DrvComplReq | RoutineAddr ptr; Irp ptr; UniqMatchId u32
53=DrvComplReqRet | Irp ptr; UniqMatchId u32

class SplitIo d837ca92-12b9-44a5-ad6a-3a65b3578aa8
version 0
32=VolMgr | ParentIrp ptr; ChildIrp ptr

class StackWalk def2fe46-7bd6-4b80-bd94-f57fe20d0ce3
version 0
tail 32=Stack | EventTimeStamp u64; StackProcess x32; StackThread u32; Stack{1..192} ptr

class ALPC 45d8cccd-539f-4b72-a8b7-5c683142609a
version 0
33=ALPC-Send-Message | MessageID u32
34=ALPC-Receive-Message | MessageID u32
35=ALPC-Wait-For-Reply | MessageID u32
36=ALPC-Wait-For-New-Message | IsServerPort u32; PortName str
37=ALPC-Unwait | Status u32

class PageFault 3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c
version 0
10=TransitionFault,11=DemandZeroFault,12=CopyOnWrite,13=GuardPageFault,14=HardPageFault | VirtualAddress ptr; ProgramCounter ptr

class SystemConfig 01853a65-418f-4f36-aefc-dc0f1d2fd235
version 0
17=NetInfo | NumTcbTablePartitions u32; MaxHashTableSize u32; MaxUserPort u32; TcpWaitTimedWaitDelay u32
alt 10=CPU | MHz u32; NumberOfProcessors u32; MemSize u32; PageSize u32; AllocationGranularity u32; ComputerName wchar[256]; DomainName wchar[132]
# Server 2003 declares these kernel BOOLEANs as MOF boolean; 1 byte here.
alt 11=PhyDisk | DiskNumber u32; BytesPerSector u32; SectorsPerTrack u32; TracksPerCylinder u32; Cylinders u64; SCSIPort u32; SCSIPath u32; SCSITarget u32; SCSILun u32; Manufacturer wchar[256]; PartitionCount u32; WriteCacheEnabled bool8; BootDriveLetter wchar[3]
alt 12=LogDisk | StartOffset u64; PartitionSize u64; DiskNumber u32; Size u32; DriveType u32; DriveLetterString wchar[4]; Pad u32; PartitionNumber u32; SectorsPerCluster u32; BytesPerSector u32; NumberOfFreeClusters i64; TotalNumberOfClusters i64; FileSystem wchar[16]; VolumeExt u32

# Windows XP names the class HWConfig.
class HWConfig 01853a65-418f-4f36-aefc-dc0f1d2fd235
version 0
alt 10=CPU | MHz u32; NumberOfProcessors u32; MemSize u32; PageSize u32; AllocationGranularity u32; ComputerName wstr
alt 11=PhyDisk | DiskNumber u32; BytesPerSector u32; SectorsPerTrack u32; TracksPerCylinder u32; Cylinders u64; SCSIPort u32; SCSIPath u32; SCSITarget u32; SCSILun u32; Manufacturer wstr
alt 12=LogDisk | DiskNumber u32; Pad u32; StartOffset u64; PartitionSize u64
alt 13=NIC | NICName wstr

class TcpIp 9a280ac0-c8e0-11d1-84e2-00c04fb998a2
version 1
alt 10=Send,11=Recv,12=Connect,13=Disconnect,14=Retransmit,15=Accept,16=Reconnect | PID u32; size u32; daddr ip4; saddr ip4; dport port; sport port

# KernelTraceControl: classic classes that xperf and PerfView (through
# KernelTraceControl.dll's trace merge) add to merged traces. No MOF for
# them is public; the layouts follow TraceEvent's readers
# (SymbolTraceEventParser, KernelTraceEventParser) and were checked
# against net.4.5.2.x64.etl, except where a comment below says otherwise
# (mof/ktc_test.go checks every corpus event of these classes).
# TraceEvent reads them whatever their version, so each layout is
# registered for versions 0-2.
provider KernelTraceControl
class ImageID b3e675d7-2554-4f18-830b-2762732560de
version 0-2
0=Info | ImageBase ptr; ImageSize ptr; ProcessId u32; TimeDateStamp u32; OriginalFileName wstr
32=None | ImageBase ptr; ProcessId u32
36=DbgID_RSDS,37=DbgID_ILRSDS | ImageBase ptr; ProcessId u32; GuidSig guid; Age u32; PdbFileName str
38=DbgPPDB | ImageBase ptr; ProcessId u32; TimeDateStamp u32; MajorVersion u16; MinorVersion u16
40=DbgDeterm | ImageBase ptr; ProcessId u32
64=FileVersion | ImageSize u32; TimeDateStamp u32; OrigFileName wstr; FileDescription wstr; FileVersion wstr; BinFileVersion wstr; VerLanguage wstr; ProductName wstr; CompanyName wstr; ProductVersion wstr; FileId wstr; ProgramId wstr

class SysConfig 9b79ee91-b5fd-41c0-a243-4248e266e9d0
version 0-2
32=BuildInfo | InstallDate filetime; BuildLab wstr; ProductName wstr
33=SystemPaths | SystemDirectory wstr; SystemWindowsDirectory wstr
34=UnknownVolume | Value wstr
35=VolumeMapping | NtPath wstr; DosPath wstr
# NetworkInterface: no layout is public (TraceEvent has none). Inferred,
# verified on the 127 type-36 payloads of the corpus (PktMon captures,
# 1352 bytes each): the payload is netioapi.h's MIB_IF_ROW2 (documented on
# Microsoft Learn; 1352 bytes, no pointers, so one layout for 32- and
# 64-bit), one event per interface, which is what KernelTraceControl's
# documented EVENT_TRACE_MERGE_EXTENDED_DATA_NETWORK_INTERFACE merge flag
# ("Inject network interface information") adds. The values fit field by
# field: the IfType in the top 16 bits of InterfaceLuid equals Type,
# PhysicalAddressLength is 6 where PhysicalAddress holds a MAC, Alias and
# Description are NUL-padded interface names, and the two alignment gaps
# of the C struct (after the flags byte and after ConnectionType) are zero.
# Type 37 (16 bytes) stays undecoded: nothing public describes it.
36=NetworkInterface | InterfaceLuid x64; InterfaceIndex u32; InterfaceGuid guid; Alias wchar[257]; Description wchar[257]; PhysicalAddressLength u32; PhysicalAddress x8[32]; PermanentPhysicalAddress x8[32]; Mtu u32; Type u32; TunnelType u32; MediaType u32; PhysicalMediumType u32; AccessType u32; DirectionType u32; InterfaceAndOperStatusFlags x8; Padding1 u8![3]; OperStatus u32; AdminStatus u32; MediaConnectState u32; NetworkGuid guid; ConnectionType u32; Padding2 u32!; TransmitLinkSpeed u64; ReceiveLinkSpeed u64; InOctets u64; InUcastPkts u64; InNUcastPkts u64; InDiscards u64; InErrors u64; InUnknownProtos u64; InUcastOctets u64; InMulticastOctets u64; InBroadcastOctets u64; OutOctets u64; OutUcastPkts u64; OutNUcastPkts u64; OutDiscards u64; OutErrors u64; OutUcastOctets u64; OutMulticastOctets u64; OutBroadcastOctets u64; OutQLen u64

# WinSat (EVENT_TRACE_MERGE_EXTENDED_DATA_WINSAT): TraceEvent's
# WinSatXmlTraceData (SymbolTraceEventParser.cs; ETWAnalyzer reads it the
# same way) gives the layout: a 32-bit state, the uncompressed length, and
# the rest of the payload LZNT1-compressed UTF-16 XML (<WinSPR>,
# <Metrics>, <SystemConfig>). The XML is left compressed; checked on the
# 15 corpus events, which all decompress to exactly UncompressedLength.
class WinSat ed54dff8-c409-4cf6-bf83-05e1e61a09c4
version 0-2
33=WinSPR,35=Metrics,37=SystemConfig | State u32; UncompressedLength u32; CompressedXml x8[]

# PerfTrack MetaData (bf6ef1cb-89b5-490a-80ac-b180cfbcff0f, types 33 and
# 34): no layout anywhere public (TraceEvent only names the GUID) and no
# such event in the corpus to check one against, so it has none here.
`
