// Package pdb reads Microsoft PDB 7.0 files (the MSF container written by
// MSVC's linker, lld-link and the .NET Framework compilers) on any
// operating system, in the style of debug/pe: a [File] wraps an
// [io.ReaderAt] and its size and reads only the streams a call needs.
//
// It reads what symbolizing a stack needs: the identity (GUID and age,
// which a PE's CodeView debug entry and an ETW trace's DbgID_RSDS event
// name), the image section headers, the public symbols (S_PUB32), the
// module symbols (S_GPROC32, S_LPROC32, their _ID and _DPC forms, and
// S_THUNK32), the C13 line tables (DEBUG_S_LINES with DEBUG_S_FILECHKSMS
// and the "/names" string table), and S_ANNOTATION records (where WPP
// keeps its trace message formats). [File.Lookup] finds the function that
// holds an RVA, its offset, and the source file and line.
//
// # Layout
//
// An MSF file is a sequence of blocks (512 to 32768 bytes; 4096 in
// practice). Block 0 is the superblock: the signature "Microsoft C/C++ MSF
// 7.00\r\n\x1aDS\0\0\0", then u32 BlockSize, FreeBlockMapBlock, NumBlocks,
// NumDirectoryBytes, an unused word and BlockMapAddr, the block that lists
// the blocks of the stream directory. The directory is u32 NumStreams,
// the size of each stream (0xFFFFFFFF: none), then each stream's block
// numbers. A stream is the concatenation of its blocks.
//
// Stream 1, the PDB info stream, holds version, signature, age and GUID,
// then a table of named streams ("/names" is the string table of file
// names). Stream 3, the DBI stream, starts with a 64-byte header (its own
// age; the stream numbers of the globals, publics and symbol records;
// the sizes of its substreams; the machine) followed by the module list
// (one 64-byte entry a module plus its names: the module's symbol stream
// and the byte counts of its symbols and line information), the section
// contributions (which module owns which range of which section), and
// the optional debug header, an array of stream numbers of which entry 5
// is the stream of IMAGE_SECTION_HEADERs.
//
// Symbol records are {u16 length, u16 kind, payload}. An address is a
// section number (from 1) and an offset; its RVA is the section's
// VirtualAddress plus the offset. A module's symbol stream is a u32
// signature (4), its records, then C11 and C13 line information: C13 is a
// run of {u32 kind, u32 length, data} subsections, padded to 4 bytes.
// DEBUG_S_LINES (0xF2) gives a code range and, a block per source file,
// {offset, line} pairs; the file is an offset into DEBUG_S_FILECHKSMS
// (0xF4), whose entry gives an offset into "/names".
//
// # Reading on demand
//
// [NewFile] reads the superblock, the stream directory, the PDB info
// stream and the DBI header. Everything else is read when first asked for
// and kept: the section headers, the section contributions, a module's
// function list (sorted, at the first lookup in that module), its line
// tables, and the publics (a sorted table of RVA and record offset; names
// are read again when a lookup lands on one). A lookup reads only the
// module that owns the address. Publics whose names are decorated are
// named by [UndecorateName], a reader of the common MSVC decorations that
// gives up, leaving the decorated name, where it is unsure.
//
// # Hostile input
//
// PDB files are untrusted input. The block size, the block count (against
// the file size), the directory's size and blocks (each in range, none
// twice: no cycles), every stream's size (against the file) and block
// numbers, and every count and length inside a stream are checked before
// anything is allocated or read. Errors are [*FormatError]s that name the
// stream and the offset in it (and the file offset), or the file offset
// for the container. Nothing panics on any input (fuzzed).
//
// # Not read
//
// Portable PDBs (.NET Core's "BSJB" format) and MSF 2.0 files give
// [ErrNotPDB]. Type records (TPI, IPI), local variables, inline sites and
// frame data are not read.
//
// # OMAP
//
// Some operating system images were rearranged after linking (by BBT);
// their PDBs keep the symbols at their addresses as linked, with the
// original section headers (DBI debug header entry 10) and two tables,
// OMAP_TO_SRC (entry 3: image RVA → RVA as linked) and OMAP_FROM_SRC
// (entry 4: the reverse), each {u32 from, u32 to} pairs sorted by from.
// An address maps to to + (address − from) of the last pair at or below
// it, or nowhere when that pair's to is 0. [File.Lookup] translates the
// image RVA it is given, and every RVA this package returns is an image
// RVA.
package pdb
