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

// syncFile makes appended bytes durable (fdatasync where there is one).
func syncFile(f file) error {
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
