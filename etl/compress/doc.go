// Package compress implements the decompressors behind the Windows
// RtlDecompressBufferEx compression formats that appear in compressed ETW
// (.etl) buffers.
//
// Three formats are supported, each following the Microsoft Open
// Specification [MS-XCA] "Xpress Compression Algorithm" (v10.0, 2024):
//
//   - [LZNT1] (COMPRESSION_FORMAT_LZNT1 = 2): [MS-XCA] section 2.5
//     "LZNT1 Algorithm Details" (buffer, chunk, flag-group and
//     compressed-word formats of 2.5.1, processing rules of 2.5.3), decoded
//     by [DecompressLZNT1].
//   - [Xpress] (COMPRESSION_FORMAT_XPRESS = 3): [MS-XCA] section 2.4
//     "Plain LZ77 Decompression Algorithm Details", the inverse of the
//     encoder in section 2.3, decoded by [DecompressLZ77].
//   - [XpressHuffman] (COMPRESSION_FORMAT_XPRESS_HUFF = 4): [MS-XCA]
//     section 2.2 "LZ77+Huffman Decompression Algorithm Details", the
//     inverse of the encoder in section 2.1, decoded by [DecompressHuffman].
//
// Windows' ETW logger (including the kernel logger) compresses trace
// buffers with format 3, plain LZ77: an .etl buffer whose header has the
// compressed flag set carries an MS-XCA plain LZ77 stream after its
// 0x48-byte header.
//
// For writing such buffers the package also has a plain LZ77 compressor,
// [Compressor] (or [AppendLZ77] with pooled ones), following [MS-XCA]
// section 2.3 "Plain LZ77 Compression Algorithm Details": it writes the
// streams Windows' RtlCompressBuffer writes for COMPRESSION_FORMAT_XPRESS,
// ended the same way, with greedy matching over bounded hash chains. It
// compresses real trace buffers about 10% smaller than Windows does, at
// hundreds of megabytes per second per core, and allocates nothing once
// warm; [LZ77Bound] gives the largest output size.
//
// All decoders share the calling convention of RtlDecompressBufferEx: the
// caller passes a destination slice whose length is the expected
// uncompressed size, and the decoder writes at most len(dst) bytes and
// returns how many it wrote. Input that would produce more than len(dst)
// bytes fails with [ErrOutputOverflow]; input that is malformed fails with
// [ErrCorrupt]. Returned errors wrap one of these sentinels and name the
// input byte offset at which decoding went wrong. The decoders never
// panic, never read or write outside the given slices and never allocate
// memory sized by values taken from the input.
//
// [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/a8b7cb0a-92a6-4187-a23b-5e14273b96f8
package compress
