package analysis

// What a model built with Options.AnnotationsOnly (the dumps') skips.
// An annotation reads of the model the processes by id and time (their
// image names), the threads' processes, the images and .NET methods that
// resolve a stack's addresses, and the stack keys' definitions and
// owners; driver.SelectProcesses reads the processes' names. Events of
// the other kinds (CPU samples, stack walks, I/O, network, the .NET
// runtime's GC and other events, volume mappings) only add to counts and
// statistics, and give a process their payload or header names a record
// when it has none: a placeholder, named only for pid 0 ("Idle"), which
// the later events describing the process turn into its record or find
// as it is. So once pid 0 has a record, such an event changes nothing an
// annotation reads but the thread its header names (begin), and the
// model neither decodes it nor attributes it. (Nor does it decode ahead:
// see Build.)

// describes reports whether events of kind k describe what annotations
// read: processes, threads, images and their identities (but with
// Options.NoImageIDs), .NET methods, stack keys.
func (b *Builder) describes(k kind) bool {
	return !idsOnly(k) && k != kClrGC && k != kVolume && !b.headerOnly(k)
}

// headerOnly reports whether b reads only the header of an event of kind
// k: an image's identity with Options.NoImageIDs.
func (b *Builder) headerOnly(k kind) bool {
	return b.noImageIDs && (k == kImageID || k == kImageRSDS)
}

// skips reports whether b only begins an event of kind k (see above).
func (b *Builder) skips(k kind) bool {
	if b.skipSet>>k&1 == 0 {
		return false
	}
	if !b.idle {
		if len(b.m.pidRecs(b.m.build, 0)) == 0 {
			return false
		}
		b.idle = true
	}
	return true
}

// skipKinds returns the set of the kinds skips may skip (bit k): none
// but with Options.AnnotationsOnly, then those that describe nothing an
// annotation reads (a set taken once: skips is asked for every event).
func (b *Builder) skipKinds() uint32 {
	var set uint32
	for k := range numKinds {
		if b.annOnly && !b.describes(k) {
			set |= 1 << k
		}
	}
	return set
}

// methodNames returns how many of methodNames b keeps: not the
// signature with Options.AnnotationsOnly (no annotation reads it).
func (b *Builder) methodNames() int {
	if b.annOnly {
		return 2
	}
	return len(methodNames)
}
