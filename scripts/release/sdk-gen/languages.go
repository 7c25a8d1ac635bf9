//go:build !dotnet

package main

import (
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// languages are what this build, against the Pulumi release of go.mod, generates.
var languages = []language{
	{"python", "python", python.Importer, func(pkg *schema.Package) (map[string][]byte, error) {
		return python.GeneratePackage(tool, pkg, nil, noReferences{})
	}},
	{"go", "go", gogen.Importer, func(pkg *schema.Package) (map[string][]byte, error) {
		return gogen.GeneratePackage(tool, pkg, nil)
	}},
}
