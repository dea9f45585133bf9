package sympath

import (
	"context"
	"errors"
	"sync"

	"github.com/etwkit/etw/pdb"
)

// Resolver names addresses of images by their PDBs: it finds each PDB
// through a [Locator] the first time an image is asked about, keeps it
// open, and answers later addresses from it. An image whose PDB cannot be
// found (or opened) is searched for once; its later addresses answer
// false at once, with no error. Each PDB found stays open (one file
// descriptor) until [Resolver.Close]. A Resolver may be used from several
// goroutines.
type Resolver struct {
	Locator *Locator

	mu     sync.Mutex
	images map[Identity]*resolved // by base name, GUID and age
}

type resolved struct {
	ready chan struct{}
	f     *pdb.File
	err   error
}

// Resolve returns the symbol that holds rva in the image whose PDB is id.
// The error is the search's (once per image: [ErrNotFound] wrapped, or
// the download failures) or the PDB's own damage; ok is false when the
// PDB has no symbol there or could not be had.
func (r *Resolver) Resolve(ctx context.Context, id Identity, rva uint32) (sym pdb.Symbol, ok bool, err error) {
	f, first, err := r.file(ctx, id)
	if f == nil {
		if first {
			return pdb.Symbol{}, false, err
		}
		return pdb.Symbol{}, false, nil
	}
	return f.Lookup(rva)
}

// file returns the open PDB of id; first reports that this call made the
// search (so its error is reported once).
func (r *Resolver) file(ctx context.Context, id Identity) (*pdb.File, bool, error) {
	key := Identity{Name: id.file(), GUID: id.GUID, Age: id.Age} // no allocation per lookup
	r.mu.Lock()
	if r.images == nil {
		r.images = map[Identity]*resolved{}
	}
	e, ok := r.images[key]
	if !ok {
		e = &resolved{ready: make(chan struct{})}
		r.images[key] = e
	}
	r.mu.Unlock()
	if ok {
		select {
		case <-e.ready:
			return e.f, false, e.err
		case <-ctx.Done():
			return nil, true, ctx.Err()
		}
	}
	path, err := r.Locator.Find(ctx, id)
	if err == nil {
		e.f, err = pdb.Open(path)
	}
	e.err = err
	if err != nil && ctx.Err() != nil {
		// Cancelled: not an answer about the image; forget it.
		r.mu.Lock()
		delete(r.images, key)
		r.mu.Unlock()
	}
	close(e.ready)
	return e.f, true, e.err
}

// Close closes every PDB the Resolver opened.
func (r *Resolver) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for k, e := range r.images {
		select {
		case <-e.ready:
			if e.f != nil {
				errs = append(errs, e.f.Close())
			}
			delete(r.images, k)
		default: // still being searched for: its caller owns it
		}
	}
	return errors.Join(errs...)
}
