package engine

import (
	"github.com/kura-db/kura/internal/attr"
	"github.com/kura-db/kura/internal/ddberr"
	"github.com/kura-db/kura/internal/expr"
)

// ReturnValues values.
const (
	rvNone       = "NONE"
	rvAllOld     = "ALL_OLD"
	rvUpdatedOld = "UPDATED_OLD"
	rvAllNew     = "ALL_NEW"
	rvUpdatedNew = "UPDATED_NEW"
)

// checkOldOnlyReturnValues is the PutItem/DeleteItem rule: of the
// ReturnValues enum only NONE and ALL_OLD are allowed (the api layer has
// already rejected values outside the enum).
func checkOldOnlyReturnValues(rv string) error {
	if rv != "" && rv != rvNone && rv != rvAllOld {
		return ddberr.Detected("ReturnValues can only be ALL_OLD or NONE")
	}
	return nil
}

// oldOnlyAttributes is the Attributes member of PutItem/DeleteItem: the old
// item for ALL_OLD, when there was one.
func oldOnlyAttributes(rv string, old attr.Item) attr.Item {
	if rv == rvAllOld && len(old) > 0 {
		return old
	}
	return nil
}

// updateAttributes is the Attributes member of UpdateItem. UPDATED_OLD and
// UPDATED_NEW return every attribute path the update touched (even when its
// value did not change), taken from the item before or after.
func updateAttributes(rv string, old, new attr.Item, touched []expr.Path) attr.Item {
	var out attr.Item
	switch rv {
	case rvAllOld:
		out = old
	case rvAllNew:
		out = new
	case rvUpdatedOld:
		out = projectPaths(old, touched)
	case rvUpdatedNew:
		out = projectPaths(new, touched)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// projectPaths is it reduced to the given document paths.
func projectPaths(it attr.Item, paths []expr.Path) attr.Item {
	if it == nil || len(paths) == 0 {
		return nil
	}
	return (&expr.Projection{Paths: paths}).Apply(it)
}
