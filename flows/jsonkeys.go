package flows

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// CheckJSONKeys refuses JSON in which one object names a key twice, or names two
// keys that differ only in letter case ("n" and "N"): Go's decoder would keep the
// last one, or match either to one field, so such a document has no single meaning.
// It checks every object, nested ones included; it does not otherwise validate.
func CheckJSONKeys(b []byte) error {
	if err := jsonKeys(b); err != nil {
		return err
	}
	return nil
}

// jsonKeys is CheckJSONKeys without the package prefix.
func jsonKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := checkValue(dec, ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// checkValue reads one value and checks the objects in it; at is its path.
func checkValue(dec *json.Decoder, at string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]string{} // folded key → key as written
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			where := k
			if at != "" {
				where = at + "." + k
			}
			fold := strings.ToLower(k)
			if prev, dup := seen[fold]; dup {
				if prev == k {
					return fmt.Errorf("field %q is given twice", where)
				}
				return fmt.Errorf("fields %q and %q differ only in case", prev, k)
			}
			seen[fold] = k
			if err := checkValue(dec, where); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return err
	}
	return nil
}
