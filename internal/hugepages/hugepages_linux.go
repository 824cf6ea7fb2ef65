package hugepages

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// pageSize is the base page size madvise ranges are aligned to.
const pageSize = 4096

// advise marks the whole 4 KiB pages of x with MADV_HUGEPAGE before they
// are first written. An error (a kernel without transparent huge pages)
// leaves ordinary pages, which is what the hint falls back to anyway.
func advise(x []float64) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), len(x)*8)
	off := int((pageSize - uintptr(unsafe.Pointer(&b[0]))%pageSize) % pageSize)
	if len(b)-off < pageSize {
		return
	}
	_ = unix.Madvise(b[off:off+(len(b)-off)&^(pageSize-1)], unix.MADV_HUGEPAGE)
}
