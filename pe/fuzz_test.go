package pe_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/etwkit/etw/pe"
	"github.com/etwkit/etw/pe/petest"
)

// FuzzPE walks the resource tree of arbitrary bytes, reads every resource
// and the message tables, and parses the bytes as a message table: nothing
// may panic, every error must be a *FormatError, and nothing may allocate
// much more than the input.
func FuzzPE(f *testing.F) {
	f.Add(petest.Build(petest.Options{}, testResources()))
	f.Add(petest.Build(petest.Options{PE32Plus: true}, testResources()))
	f.Add(petest.Build(petest.Options{}, nil))
	f.Add(petest.MessageTable(testMessages))
	f.Fuzz(func(t *testing.T, data []byte) {
		if mt, err := pe.ParseMessageTable(data); err == nil {
			if len(mt) > len(data)/4 {
				t.Fatalf("%d messages from %d bytes", len(mt), len(data))
			}
		} else if !isFormatError(err) {
			t.Fatalf("message table: %T %v", err, err)
		}
		r := bytes.NewReader(data)
		ok, err := pe.HasResourceType(r, int64(len(data)), pe.WEVTTemplate)
		if err != nil && !isFormatError(err) {
			t.Fatalf("HasResourceType: %T %v", err, err)
		}
		file, err := pe.NewFile(r, int64(len(data)))
		if err != nil {
			if !isFormatError(err) {
				t.Fatalf("NewFile: %T %v", err, err)
			}
			return
		}
		res, err := file.Resources()
		if err != nil && !isFormatError(err) {
			t.Fatalf("Resources: %T %v", err, err)
		}
		if len(res) > len(data)/8+1 {
			t.Fatalf("%d resources from %d bytes", len(res), len(data))
		}
		if err == nil {
			found := false
			for _, x := range res {
				if x.Type.Match(pe.TypeWEVTTemplate) {
					found = true
				}
				b, err := file.ReadResource(x)
				if err != nil && !isFormatError(err) {
					t.Fatalf("ReadResource: %T %v", err, err)
				}
				if len(b) > len(data) {
					t.Fatalf("%d-byte resource from %d bytes", len(b), len(data))
				}
			}
			// The type may be an empty directory: HasResourceType only
			// looks at the root.
			if found && !ok {
				t.Fatalf("HasResourceType false, yet resources of the type")
			}
		}
		if _, err := file.MessageTable(); err != nil && !isFormatError(err) {
			t.Fatalf("MessageTable: %T %v", err, err)
		}
		if cv, err := file.CodeView(); err != nil && !isFormatError(err) {
			t.Fatalf("CodeView: %T %v", err, err)
		} else if len(cv.PDBPath) > len(data) {
			t.Fatalf("%d-byte PDB path from %d bytes", len(cv.PDBPath), len(data))
		}
	})
}

func isFormatError(err error) bool {
	var fe *pe.FormatError
	return errors.As(err, &fe)
}
