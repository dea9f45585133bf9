package etltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/internal/etlcorpus"
)

// FuzzSeeds adds to f, squeezed ([Squeeze]), the files of the corpus
// (ETL_CORPUS) of at most maxSize bytes and the named hostile inputs
// (relative to [AttackDir]), those at hand: without them the target
// still runs on its other seeds (a corpus that cannot be listed fails it:
// [CorpusTraces]).
func FuzzSeeds(f *testing.F, maxSize int, attack ...string) {
	if os.Getenv("ETL_CORPUS") != "" {
		for _, p := range CorpusTraces(f) {
			if b, err := os.ReadFile(p); err == nil && len(b) <= maxSize {
				f.Add(Squeeze(b))
			}
		}
	}
	if dir, why := etlcorpus.FindShared("ETL_ATTACK", "attack", "hostile inputs"); why == "" {
		for _, name := range attack {
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
				f.Add(Squeeze(b))
			}
		}
	}
}
