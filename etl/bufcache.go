package etl

import "sync"

// BufferCache keeps the decompressed data of compressed buffers, so that
// reading a file again (a prescan for the schemas the trace carries, an
// analysis pass, then the dump) shares each buffer's data rather than
// decompressing it again. Buffers are kept in the order they are first
// read until the cache holds its maximum; later ones are decompressed at
// each read. Attach it to files with [File.SetBufferCache]; one cache may
// serve several files. It is safe for concurrent use.
type BufferCache struct {
	mu     sync.Mutex
	max    int64
	size   int64
	m      map[bufferKey][]byte
	hits   int64
	misses int64
}

type bufferKey struct {
	f   *File
	off int64
}

// NewBufferCache returns a cache that holds up to max bytes of
// decompressed buffers.
func NewBufferCache(max int64) *BufferCache {
	return &BufferCache{max: max, m: map[bufferKey][]byte{}}
}

// Stats returns the reads served from the cache, the decompressions, and
// the bytes held.
func (c *BufferCache) Stats() (hits, misses, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses, c.size
}

// SetBufferCache makes f keep its decompressed buffers in c (nil: none).
// [File.Close] removes them from c.
func (f *File) SetBufferCache(c *BufferCache) {
	if f.cache != nil && f.cache != c {
		f.cache.drop(f)
	}
	f.cache = c
}

// drop removes f's buffers.
func (c *BufferCache) drop(f *File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range c.m {
		if k.f == f {
			delete(c.m, k)
			c.size -= int64(len(d))
		}
	}
}

// get returns the cached data of the buffer at off. The data is shared:
// it must not be modified.
func (c *BufferCache) get(f *File, off int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[bufferKey{f, off}]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	return d, true
}

// put keeps data, if it fits, and reports whether it did: the cache then
// owns data, which must not be modified or reused.
func (c *BufferCache) put(f *File, off int64, data []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := bufferKey{f, off}
	if _, ok := c.m[k]; ok || c.size+int64(len(data)) > c.max {
		return false
	}
	c.m[k] = data[:len(data):len(data)]
	c.size += int64(len(data))
	return true
}
