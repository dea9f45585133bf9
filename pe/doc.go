// Package pe reads the resources of Windows PE (Portable Executable) files
// — EXE, DLL, SYS, MUI — and the CodeView entry of their debug directory
// (the identity of the image's PDB) on any operating system, in the style
// of debug/pe: a [File] wraps an [io.ReaderAt] and its size and reads only
// what is asked for.
//
// # Layout
//
// A PE file starts with an MS-DOS header ("MZ") whose e_lfanew field (at
// offset 0x3C) gives the offset of the "PE\0\0" signature. The 20-byte COFF
// file header follows (machine, number of sections, size of the optional
// header), then the optional header, whose magic tells PE32 (0x10B) from
// PE32+ (0x20B), then the section table (40 bytes per section: name,
// VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData, …). The
// optional header ends with the data directories; directory 2 (at optional
// header offset 112 for PE32, 128 for PE32+) is the resource directory: the
// RVA and size of the resource tree. An RVA (relative virtual address) maps
// to a file offset through the section that contains it:
// offset = RVA − VirtualAddress + PointerToRawData.
//
// The resource tree has three levels: type → name → language. Each level is
// an IMAGE_RESOURCE_DIRECTORY (16 bytes; the counts of named and of id
// entries at offsets 12 and 14) followed by 8-byte entries, named ones
// first. An entry's first word is an id, or with bit 31 set the offset of
// its name (a u16 count of UTF-16 units, then the units, no NUL); its
// second word is, with bit 31 set, the offset of a subdirectory, else the
// offset of a 16-byte data entry {DataRVA, Size, CodePage, Reserved}.
// Directory, name and data-entry offsets are relative to the start of the
// resource tree; DataRVA is an image RVA. Types are ids (RT_MESSAGETABLE is
// 11) or names ("WEVT_TEMPLATE", the compiled event manifest); names are
// compared without regard to case, as FindResource does. [ParseResID]
// reads Windows' "#11" spelling of an id.
//
// A message table (RT_MESSAGETABLE) is a MESSAGE_RESOURCE_DATA: a u32 count
// of blocks, then 12-byte blocks {LowId, HighId, OffsetToEntries}, and for
// each block HighId−LowId+1 entries back to back, each {u16 Length of the
// whole entry, u16 Flags, text}: flags 0 is ANSI (read here as Windows-1252),
// 1 UTF-16LE, 2 UTF-8. [ParseMessageTable] returns the texts as written,
// NUL padding removed; message-compiler output ends most texts with "\r\n".
//
// Data directory 6 is the debug directory: 28-byte entries {…, u32 Type at
// 12, u32 SizeOfData at 16, u32 AddressOfRawData at 20, u32
// PointerToRawData at 24}. Type 2 is CodeView; its data, in PDB 7.0 form,
// is "RSDS", the PDB's GUID (16 bytes), its age (u32) and its path (NUL
// terminated). [File.CodeView] returns them: the name, GUID and age by
// which a symbol server stores the PDB.
//
// # Hostile input
//
// PE files are untrusted input. Every offset, count and size is checked
// against the file size before anything is allocated or read; the
// resource walk refuses a directory it has already visited (a cyclic
// tree), any level below the third, and more entries than the resource
// section can hold; a message table may not describe more entries than its
// bytes can hold. Errors are [*FormatError]s that name the file offset of
// the problem. Nothing panics on any input (fuzzed).
package pe
