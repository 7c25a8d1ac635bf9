//go:build dotnet

package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
)

// The .NET generator fetches the NuGet package's icon from the schema's logoUrl, or from GitHub when
// there is none: this build answers that URL itself, so generating needs no network.
const logoURL = "sdk-gen://logo.png"

func init() {
	http.DefaultTransport.(*http.Transport).RegisterProtocol("sdk-gen", logoTransport{})
}

// logoTransport answers every request with the logo.
type logoTransport struct{}

func (logoTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	logo, err := plainLogo()
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"image/png"}},
		Body:       io.NopCloser(bytes.NewReader(logo)),
		Request:    req,
	}, nil
}

// plainLogo is a 64x64 square in one colour, the package having no logo of its own.
func plainLogo() ([]byte, error) {
	square := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for x := range 64 {
		for y := range 64 {
			square.Set(x, y, color.RGBA{R: 0x2b, G: 0x6c, B: 0xb0, A: 0xff})
		}
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, square)
	return buf.Bytes(), err
}
