// Command release-go writes the archives of a release that Go writes best (scripts/release/release.ts runs it):
//
//	release-go module -dir DIR -version vX.Y.Z -time RFC3339 -out GOPROXY
//
// lays the module in DIR out as a Go module proxy serves it, under GOPROXY/<escaped path>/@v/: the
// version's .info, .mod and .zip (Go's module zip format, checked by golang.org/x/mod/zip as the go
// command checks it), and the list of versions, so that GOPROXY=file://GOPROXY go get finds it;
//
//	release-go zip -dir DIR -prefix NAME -time RFC3339 -out FILE.zip
//
// zips DIR with its files under NAME/, in name order, each stamped with the given time, so that the same
// sources make the same bytes.
package main

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: release-go module|zip [flags]"))
	}
	var err error
	switch os.Args[1] {
	case "module":
		err = moduleCommand(os.Args[2:])
	case "zip":
		err = zipCommand(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: module or zip", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "release-go:", err)
	os.Exit(1)
}

func moduleCommand(args []string) error {
	flags := flag.NewFlagSet("module", flag.ExitOnError)
	dir := flags.String("dir", "", "the module's root folder, holding its go.mod")
	version := flags.String("version", "", "the version, vX.Y.Z")
	stamp := flags.String("time", "", "the version's time (RFC 3339), as its .info gives it")
	out := flags.String("out", "", "the proxy's root folder")
	if err := flags.Parse(args); err != nil {
		return err
	}
	when, err := time.Parse(time.RFC3339, *stamp)
	if err != nil {
		return fmt.Errorf("-time: %w", err)
	}
	goMod, err := os.ReadFile(filepath.Join(*dir, "go.mod"))
	if err != nil {
		return err
	}
	modulePath := modfile.ModulePath(goMod)
	if modulePath == "" {
		return fmt.Errorf("%s/go.mod names no module", *dir)
	}
	mod := module.Version{Path: modulePath, Version: *version}
	// Checks the version's form and that it suits the path (a /vN suffix for v2 and later).
	if err := module.Check(mod.Path, mod.Version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(mod.Path)
	if err != nil {
		return err
	}
	versions := filepath.Join(*out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(versions, 0o755); err != nil {
		return err
	}

	zipFile, err := os.Create(filepath.Join(versions, mod.Version+".zip"))
	if err != nil {
		return err
	}
	// The same checks as the go command's (file names, sizes, no nested modules or vendor folders).
	if err := modzip.CreateFromDir(zipFile, mod, *dir); err != nil {
		zipFile.Close()
		return err
	}
	if err := zipFile.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(versions, mod.Version+".mod"), goMod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mod.Version, when.UTC()})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(versions, mod.Version+".info"), info, 0o644); err != nil {
		return err
	}
	return addToList(filepath.Join(versions, "list"), mod.Version)
}

// addToList keeps the proxy's list of versions: one a line, this one added once.
func addToList(list, version string) error {
	text, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	lines := strings.Fields(string(text))
	if !slices.Contains(lines, version) {
		lines = append(lines, version)
	}
	return os.WriteFile(list, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func zipCommand(args []string) error {
	flags := flag.NewFlagSet("zip", flag.ExitOnError)
	dir := flags.String("dir", "", "the folder to zip")
	prefix := flags.String("prefix", "", "the folder the files are under in the zip")
	stamp := flags.String("time", "", "the time every entry carries (RFC 3339)")
	out := flags.String("out", "", "the zip file to write")
	if err := flags.Parse(args); err != nil {
		return err
	}
	when, err := time.Parse(time.RFC3339, *stamp)
	if err != nil {
		return fmt.Errorf("-time: %w", err)
	}
	var files []string
	err = filepath.WalkDir(*dir, func(file string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		if !entry.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", file)
		}
		rel, err := filepath.Rel(*dir, file)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(files)

	target, err := os.Create(*out)
	if err != nil {
		return err
	}
	archive := zip.NewWriter(target)
	for _, name := range files {
		if err := addFile(archive, filepath.Join(*dir, filepath.FromSlash(name)), path.Join(*prefix, name), when); err != nil {
			target.Close()
			return err
		}
	}
	if err := archive.Close(); err != nil {
		target.Close()
		return err
	}
	return target.Close()
}

func addFile(archive *zip.Writer, file, name string, when time.Time) error {
	source, err := os.Open(file)
	if err != nil {
		return err
	}
	defer source.Close()
	header := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: when.UTC()}
	header.SetMode(0o644)
	entry, err := archive.CreateHeader(header)
	if err != nil {
		return err
	}
	_, err = io.Copy(entry, source)
	return err
}
