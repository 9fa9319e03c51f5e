package bridge

import (
	"encoding/json"
	"strings"

	"github.com/leasedeck/leasedeck/schemas"
)

// ParseResponse reads and validates a bridge response (what the registry
// answers, or what `leasedeck bridge` printed).
func ParseResponse(data []byte) (Response, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return Response{}, ErrEmptyInput
	}
	v, err := schemas.ParseJSON(data)
	if err != nil {
		return Response{}, err
	}
	errs, err := schemas.Validate(schemas.LifecycleResponse, v)
	if err != nil {
		return Response{}, err
	}
	if len(errs) > 0 {
		return Response{}, &ValidationError{What: "lifecycle response", Errors: errs}
	}
	var r Response
	// null members decode as zero values, which is what absent means here.
	if err := json.Unmarshal(data, &r); err != nil {
		return Response{}, err
	}
	return r, nil
}
