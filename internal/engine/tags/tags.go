package tags

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/wire"
)

// Tag limits.
const (
	// Max is how many tags a resource may have.
	Max         = 50
	maxKeyLen   = 128
	maxValueLen = 256
	// MsgTooMany is DynamoDB's refusal of more than Max tags.
	MsgTooMany = "Number of Tags exceed the current limit for the provided ResourceArn"
)

// chars is the character set AWS allows in tag keys and values.
var chars = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

// CheckKey validates one tag key.
func CheckKey(k *string) *ddberr.Error {
	if k == nil {
		return ddberr.Validation("The Tag Key provided is invalid, Key: null")
	}
	if len(*k) == 0 || len([]rune(*k)) > maxKeyLen || !chars.MatchString(*k) {
		return ddberr.Validation("The Tag Key provided is invalid, Key: " + *k)
	}
	if strings.HasPrefix(strings.ToLower(*k), "aws:") {
		return ddberr.Validation("Tag Key cannot be prefixed with aws:, Key: " + *k)
	}
	return nil
}

// Check validates a list of tags (keys, values, duplicates).
func Check(tags []wire.Tag) *ddberr.Error {
	seen := map[string]bool{}
	for _, t := range tags {
		if err := CheckKey(t.Key); err != nil {
			return err
		}
		if t.Value == nil {
			return ddberr.Validation("The Tag Value provided is invalid, Value: null")
		}
		if v := *t.Value; len([]rune(v)) > maxValueLen || !chars.MatchString(v) {
			return ddberr.Validation("The Tag Value provided is invalid, Value: " + v)
		}
		if seen[*t.Key] {
			return ddberr.Validation("Duplicate Tag Keys provided as input: Duplicate Tag Key found " + *t.Key)
		}
		seen[*t.Key] = true
	}
	return nil
}

// Merge is cur with add applied (checked tags): a key there already gets
// the new value, a new key is appended; more than Max in all is refused.
// cur is not changed.
func Merge(cur, add []wire.Tag) ([]wire.Tag, *ddberr.Error) {
	out := slices.Clone(cur)
	for _, nt := range add {
		key, value := *nt.Key, *nt.Value
		i := slices.IndexFunc(out, func(x wire.Tag) bool { return x.Key != nil && *x.Key == key })
		if i >= 0 {
			out[i].Value = &value
		} else {
			out = append(out, wire.Tag{Key: &key, Value: &value})
		}
	}
	if len(out) > Max {
		return nil, ddberr.Validation(MsgTooMany)
	}
	return out, nil
}

// Remove is cur without the tags whose key is in keys (absent keys are
// ignored). cur is not changed.
func Remove(cur []wire.Tag, keys []string) []wire.Tag {
	return slices.DeleteFunc(slices.Clone(cur), func(x wire.Tag) bool { return x.Key != nil && slices.Contains(keys, *x.Key) })
}
