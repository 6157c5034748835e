package compat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrConfigCorrupt is returned by LoadConfigFile when a config file fails the caller's
// check and no usable backup is left. The wrapped error says which file and why.
var ErrConfigCorrupt = errors.New("compat: config file corrupt")

// String2File writes content to path the way MixAll.string2File does, made crash-safe:
//
//  1. write <path>.tmp and fsync it;
//  2. if path exists, copy its content to <path>.bak (and fsync it);
//  3. rename <path>.tmp over path (Java deletes path first, leaving a window with no
//     file; rename replaces it atomically);
//  4. fsync the directory, so the rename survives a crash.
//
// The parent directory is created if missing, as Java's string2FileNotSafe does. At any
// crash point either the old or the new content is at path (or in <path>.bak).
func String2File(content []byte, path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compat: string2File %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := writeSynced(tmp, content); err != nil {
		return err
	}
	prev, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := writeSynced(path+".bak", prev); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("compat: string2File %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("compat: string2File %s: %w", path, err)
	}
	return syncDir(dir)
}

func writeSynced(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("compat: write %s: %w", path, err)
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return fmt.Errorf("compat: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("compat: fsync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("compat: close %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("compat: fsync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("compat: fsync dir %s: %w", dir, err)
	}
	return nil
}

// File2String reads a whole file (Java: MixAll.file2String). A missing file gives an
// error that matches fs.ErrNotExist, where Java returns null.
func File2String(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("compat: file2String: %w", err)
	}
	return b, nil
}

// LoadConfigFile reads a config file the way ConfigManager#load and #loadBak do, with the
// caller's parse step as check (nil accepts anything):
//
//   - path exists, is not empty and passes check: its data, fromBak false;
//   - otherwise (missing, empty, or failing check) <path>.bak is tried: if it exists, is
//     not empty and passes check, its data with fromBak true;
//   - neither file exists (or both are empty): nil data and nil error — a fresh store,
//     which Java also loads as empty;
//   - path failed check and <path>.bak is missing or empty, or .bak fails check too:
//     an error wrapping ErrConfigCorrupt. Java would start with an empty table here and
//     lose the file's content on its next persist; the caller decides.
//
// Errors other than "does not exist" while reading are returned as they are.
func LoadConfigFile(path string, check func([]byte) error) (data []byte, fromBak bool, err error) {
	main, mainErr := readOptional(path)
	if mainErr != nil {
		return nil, false, mainErr
	}
	var checkErr error
	if len(main) > 0 {
		if check == nil {
			return main, false, nil
		}
		if checkErr = check(main); checkErr == nil {
			return main, false, nil
		}
	}
	bak, bakErr := readOptional(path + ".bak")
	if bakErr != nil {
		return nil, false, bakErr
	}
	if len(bak) == 0 {
		if checkErr != nil {
			return nil, false, fmt.Errorf("%w: %s: %w (no backup)", ErrConfigCorrupt, path, checkErr)
		}
		return nil, false, nil
	}
	if check != nil {
		if err := check(bak); err != nil {
			if checkErr != nil {
				return nil, false, fmt.Errorf("%w: %s: %w; %s.bak: %w", ErrConfigCorrupt, path, checkErr, path, err)
			}
			return nil, false, fmt.Errorf("%w: %s.bak: %w", ErrConfigCorrupt, path, err)
		}
	}
	return bak, true, nil
}

// readOptional reads path; a missing file reads as nil without error.
func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("compat: read %s: %w", path, err)
	}
	return b, nil
}
