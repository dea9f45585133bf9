package main

import "github.com/olekukonko/tablewriter/pkg/twwidth"

// tablewriter's width cache is made at its package's init for 8,192
// strings, a map of about 1.5 MB that stayed live for the whole run (a
// dump of a long trace included) while the tables printed here have a few
// hundred cells: a small cache does as well.
func init() { twwidth.SetCacheCapacity(256) }
