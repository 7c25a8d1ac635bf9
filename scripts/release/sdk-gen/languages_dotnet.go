//go:build dotnet

package main

import (
	"github.com/pulumi/pulumi/pkg/v3/codegen/dotnet"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// languages are what this build generates: .NET, whose generator left pkg/v3 after the release
// go.dotnet.mod pins (docs/plugin.md#sdks-for-python-go-and-net).
var languages = []language{
	{"csharp", "dotnet", dotnet.Importer, func(pkg *schema.Package) (map[string][]byte, error) {
		pkg.LogoURL = logoURL
		return dotnet.GeneratePackage(tool, pkg, nil, nil)
	}},
}
