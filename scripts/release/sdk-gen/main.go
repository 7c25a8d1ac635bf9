// Command sdk-gen writes the SDKs of the provider's Pulumi package from its schema, with Pulumi's
// own code generators (docs/plugin.md#sdks-for-python-go-and-net).
//
//	sdk-gen -schema provider/schema.json -version 0.2.0 -out sdk
//
// writes one folder per language under -out (sdk/python, sdk/go, ...), each replaced whole. Which
// languages a build writes depends on the Pulumi release it is built against (languages.go,
// languages_dotnet.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// language is one SDK: the schema's language section it reads, its folder, its generator.
type language struct {
	schemaKey string
	folder    string
	importer  schema.Language
	generate  func(*schema.Package) (map[string][]byte, error)
}

// tool names the generator in the "do not edit" header of every generated file.
const tool = "pulumi-notification-handlers sdk-gen"

func main() {
	schemaFile := flag.String("schema", "", "the package schema (JSON)")
	version := flag.String("version", "", "the version stamped into the SDKs (semver)")
	out := flag.String("out", "", "the folder receiving one folder per language")
	flag.Parse()
	if err := run(*schemaFile, *version, *out); err != nil {
		fmt.Fprintf(os.Stderr, "sdk-gen: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaFile, version, out string) error {
	for _, f := range []struct{ name, value string }{{"-schema", schemaFile}, {"-version", version}, {"-out", out}} {
		if f.value == "" {
			return fmt.Errorf("%s is required", f.name)
		}
	}
	for _, lang := range languages {
		// Bound afresh for each language: a generator renames what it generates in the bound package
		// (enum values, for one), and the next would take those names for the schema's.
		pkg, err := bindSchema(schemaFile, version)
		if err != nil {
			return err
		}
		files, err := lang.generate(pkg)
		if err != nil {
			return fmt.Errorf("generating the %s SDK: %w", lang.folder, err)
		}
		dir := filepath.Join(out, lang.folder)
		if err := writeFolder(dir, files); err != nil {
			return err
		}
		fmt.Printf("%s: %d files\n", dir, len(files))
	}
	return nil
}

// bindSchema reads and checks the schema, with the version set: the committed schema has none, as
// the plugin stamps its own (docs/plugin.md#the-schema).
func bindSchema(schemaFile, version string) (*schema.Package, error) {
	if _, err := semver.Parse(version); err != nil {
		return nil, fmt.Errorf("-version %q is not a semantic version: %w", version, err)
	}
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s is not a package schema: %w", schemaFile, err)
	}
	spec.Version = version
	// Each SDK is of one version, so it carries that version's URL: a stack's provider records the
	// URL its SDK sent, and `pulumi import` copies it into the program it generates, where `${...}`
	// is an interpolation and fails (docs/plugin.md#installing-the-plugin).
	spec.PluginDownloadURL = strings.ReplaceAll(spec.PluginDownloadURL, "${VERSION}", version)
	pkg, diags, err := schema.BindSpec(spec, noReferences{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("binding %s: %w", schemaFile, err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s is not a valid package schema: %s", schemaFile, diags.Error())
	}
	importers := map[string]schema.Language{}
	for _, lang := range languages {
		importers[lang.schemaKey] = lang.importer
	}
	// Reads the schema's `language` sections (package names, namespaces, import paths).
	if err := pkg.ImportLanguages(importers); err != nil {
		return nil, fmt.Errorf("reading the language sections of %s: %w", schemaFile, err)
	}
	return pkg, nil
}

// writeFolder replaces dir with exactly the generated files.
func writeFolder(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noReferences loads no package: the schema refers to none but its own types, so a request for
// another package is an error in the schema.
type noReferences struct{}

var errNoReferences = errors.New("the schema may refer to no other package")

func (noReferences) LoadPackage(string, *semver.Version) (*schema.Package, error) {
	return nil, errNoReferences
}

func (noReferences) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNoReferences
}

func (noReferences) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNoReferences
}

func (noReferences) LoadPackageReferenceV2(
	context.Context, *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, errNoReferences
}
