module github.com/leasedeck/leasedeck

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/gowebpki/jcs v1.0.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.14.0
)

require github.com/stretchr/testify v1.12.1 // indirect
