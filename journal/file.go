package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// file is what the writer needs of an open journal file. It is an
// *os.File in use; the interface exists so that tests can make the kernel's
// rarer answers (EIO from a write or an fsync) happen on demand.
type file interface {
	io.ReaderAt
	io.WriterAt
	Truncate(size int64) error
	Stat() (fs.FileInfo, error)
	Close() error
	Name() string
}

// datasyncer is a file that makes its own appended bytes durable.
type datasyncer interface{ Datasync() error }

// syncFault, when set, may fail an fsync before it is made. Only a
// binary built with the leasedeck_faultinject tag sets it (see
// faultinject.go), for the chaos test; a shipped binary has none.
var syncFault func(name string) error

// syncFile makes appended bytes durable (fdatasync where there is one).
func syncFile(f file) error {
	if syncFault != nil {
		if err := syncFault(f.Name()); err != nil {
			return err
		}
	}
	switch f := f.(type) {
	case datasyncer:
		return f.Datasync()
	case *os.File:
		return syncData(f)
	}
	return errors.New("journal: file cannot be synced")
}

// fileID is a file's identity on its device, to tell a file from another
// that took its name. ok is false where the platform gives none.
type fileID struct {
	Dev, Ino uint64
}

func (id fileID) String() string { return fmt.Sprintf("%d:%d", id.Dev, id.Ino) }
