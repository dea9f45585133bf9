package parquetout

import (
	"encoding/binary"
	"slices"
)

// The tests' reading of a record's frames into a slice, the reference
// that chunk.stackRecord and skipFrames are checked against.

type frame struct {
	address, offset uint64
	flags           uint8
	module, method  []byte
}

// parseFrames reads the frames of record b at pos into frames (emptied
// first); it returns them and where the record goes on, ok false when
// they are malformed.
func parseFrames(b []byte, pos int, frames []frame) ([]frame, int, bool) {
	if len(b)-pos < 4 {
		return frames, pos, false
	}
	nf := binary.LittleEndian.Uint32(b[pos:])
	pos += 4
	if nf == 0 {
		return frames[:0], pos, true
	}
	if len(b)-pos < 12 {
		return frames, pos, false
	}
	n := binary.LittleEndian.Uint32(b[pos+8:]) // the frames' length; the identity before it
	pos += 12
	if uint64(n) > uint64(len(b)-pos) || uint64(nf)*17 > uint64(n) {
		return frames, pos, false
	}
	end := pos + int(n)
	b = b[:end]
	// nf is bounded by the record's length: the frames are made in place.
	frames = slices.Grow(frames[:0], int(nf))[:nf]
	var ok bool
	for i := range frames {
		if len(b)-pos < 17 {
			return frames, pos, false
		}
		f := &frames[i]
		f.address, f.offset, f.flags = binary.LittleEndian.Uint64(b[pos:]), binary.LittleEndian.Uint64(b[pos+8:]), b[pos+16]
		if f.module, _, pos, ok = recStr(b, pos+17); !ok {
			return frames, pos, false
		}
		if f.method, _, pos, ok = recStr(b, pos); !ok {
			return frames, pos, false
		}
	}
	return frames, pos, pos == end
}

// addRecord is rowSet.addRecordWith with the frames read by parseFrames
// into r.frames, which it returns.
func (s *rowSet) addRecord(b []byte, off int, start int64, r *recFrames) ([]frame, error) {
	err := s.addRecordWith(b, off, start, &r.rec, func(pos int) (int, bool) {
		var ok bool
		r.frames, pos, ok = parseFrames(b, pos, r.frames)
		return pos, ok
	})
	if err != nil {
		return nil, err
	}
	return r.frames, nil
}

// recFrames is a record parsed with its frames.
type recFrames struct {
	rec
	frames []frame
}

// parse parses b and reads its frames.
func (r *recFrames) parse(b []byte) error {
	if err := r.rec.parse(b); err != nil {
		return err
	}
	r.frames, _, _ = parseFrames(b, r.framesAt, r.frames)
	return nil
}
