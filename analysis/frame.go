package analysis

import "strconv"

// Frame is one resolved stack frame. Its names are made here and nowhere
// else: [Frame.Name] for aggregated views (folded stacks, speedscope, the
// report's flame graph), [FunctionName] for pprof, [Frame.AppendFunction]
// for the function alone (the JSON dump's "method").
type Frame struct {
	Address uint64
	// Image is the module holding the address, nil when none is known;
	// Offset is Address - Image.Base (the relative virtual address).
	Image  *Image
	Offset uint64
	// Method is the .NET method whose code holds the address, if any.
	Method *Method
	// Symbol is what the model's [Symbolizer] says of code in Image that
	// no .NET method holds; nil without a symbolizer or when it does not
	// know the address.
	Symbol *Symbol
}

// Symbol is a function found by a [Symbolizer] (from a PDB).
type Symbol struct {
	// Function is the function's (or method's) name; Offset is the
	// address's distance from the function's start.
	Function string
	Offset   uint64
	// File and Line are the source position, when known ("" and 0
	// otherwise).
	File string
	Line int
}

// ImageID identifies an image to a [Symbolizer]: its PDB's identity
// (the symbol server's key), its file name, and the PE header's
// TimeDateStamp and SizeOfImage (the symbol server's key of the binary).
type ImageID struct {
	PDB           PDB
	File          string
	TimeDateStamp uint32
	Size          uint64
}

// Symbolizer names code in images: given an image and a relative virtual
// address, the function holding it. A PDB reader implements it; set one
// with [Model.SetSymbolizer]. Implementations must be safe for concurrent
// use and should cache: the model asks once per distinct frame of each
// pass and goroutine.
type Symbolizer interface {
	Symbolize(im ImageID, rva uint64) (Symbol, bool)
}

// SetSymbolizer makes the model name code in images through s (nil: no
// symbols, frames named by module and offset). Set it before the passes
// that resolve frames (Model.EachSelected, an Enricher), not during one.
func (m *Model) SetSymbolizer(s Symbolizer) { m.sym = s }

// symbolize asks s for the function at rva in im.
func symbolize(s Symbolizer, im *Image, rva uint64) *Symbol {
	id := ImageID{PDB: im.PDB(), File: im.FileName(), TimeDateStamp: im.TimeDateStamp(), Size: im.Size}
	sym, ok := s.Symbolize(id, rva)
	if !ok || sym.Function == "" {
		return nil
	}
	return &sym
}

// Module returns the file name of the frame's image, or "".
func (f *Frame) Module() string { return f.Image.FileName() }

// Resolved reports whether the frame has a module or a method.
func (f *Frame) Resolved() bool { return f.Image != nil || f.Method != nil }

// HasFunction reports whether the frame's function is known: a .NET
// method or a symbol.
func (f *Frame) HasFunction() bool { return f.Method != nil || f.Symbol != nil }

// AppendFunction appends the name of the frame's function to dst: the
// .NET method's "Namespace.Name", else the symbol's function, else
// nothing.
func (f *Frame) AppendFunction(dst []byte) []byte {
	switch {
	case f.Method != nil:
		return f.Method.appendFullName(dst)
	case f.Symbol != nil:
		return append(dst, f.Symbol.Function...)
	}
	return dst
}

// Name returns the frame's name for aggregated views:
// "module!function" for a known function in a known image, "module" for
// other code in a known image, "function" for a known function outside
// any image (managed code), "?" otherwise.
func (f *Frame) Name() string {
	return string(f.appendName(nil))
}

func (f *Frame) appendName(dst []byte) []byte {
	switch {
	case f.HasFunction() && f.Image != nil:
		dst = append(dst, f.Image.FileName()...)
		dst = append(dst, '!')
		return f.AppendFunction(dst)
	case f.HasFunction():
		return f.AppendFunction(dst)
	case f.Image != nil:
		return append(dst, f.Image.FileName()...)
	}
	return append(dst, '?')
}

// FunctionName returns the name the pprof profile gives a frame's code:
// its function (see [Frame.AppendFunction]), "module!0xOFFSET" for other
// code in an image, "?!0xADDRESS" for an address nothing covers.
func FunctionName(f *Frame) string {
	return string(appendFunctionName(nil, f))
}

func appendFunctionName(dst []byte, f *Frame) []byte {
	switch {
	case f.HasFunction():
		return f.AppendFunction(dst)
	case f.Image != nil:
		dst = append(dst, f.Image.FileName()...)
		dst = append(dst, "!0x"...)
		return appendHexUpper(dst, f.Offset)
	}
	dst = append(dst, "?!0x"...)
	return appendHexUpper(dst, f.Address)
}

func appendHexUpper(dst []byte, v uint64) []byte {
	start := len(dst)
	dst = strconv.AppendUint(dst, v, 16)
	for i := start; i < len(dst); i++ {
		if c := dst[i]; 'a' <= c && c <= 'f' {
			dst[i] = c - 'a' + 'A'
		}
	}
	return dst
}
