package schemas

import "fmt"

func arrayLen(v any) int {
	switch a := v.(type) {
	case []any:
		return len(a)
	case []string:
		return len(a)
	}
	return 0
}

func arrayAt(v any, i int) any {
	switch a := v.(type) {
	case []any:
		return a[i]
	case []string:
		return a[i]
	}
	return nil
}

func (vd *validator) item(n *schemaNode, i int, v any) bool {
	if n.empty {
		return true
	}
	vd.push("", i)
	ok := vd.validate(n, v)
	vd.pop()
	return ok
}

// validateArray applies the array keywords: sizes, items, then
// uniqueItems and contains. Unless collecting every error it stops at the
// first that fails.
func (vd *validator) validateArray(n *schemaNode, arr any) bool {
	size := arrayLen(arr)
	ok := vd.arraySize(n, size)
	if !ok && !vd.collect {
		return false
	}
	if !vd.arrayItems(n, arr, size) {
		if !vd.collect {
			return false
		}
		ok = false
	}
	return vd.arrayContents(n, arr, size) && ok
}

// arraySize checks minItems and maxItems.
func (vd *validator) arraySize(n *schemaNode, size int) bool {
	ok := true
	if size < n.minItems {
		if vd.collect {
			msg := fmt.Sprintf("must have at least %d items, not %d", n.minItems, size)
			vd.add("minItems", msg, msg)
		}
		if !vd.collect {
			return false
		}
		ok = false
	}
	if n.maxItems >= 0 && size > n.maxItems {
		if vd.collect {
			msg := fmt.Sprintf("must have at most %d items, not %d", n.maxItems, size)
			vd.add("maxItems", msg, msg)
		}
		ok = false
	}
	return ok
}

// arrayItems checks items, in both its forms, and additionalItems.
func (vd *validator) arrayItems(n *schemaNode, arr any, size int) bool {
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	if n.items != nil && !n.items.empty {
		for i := 0; i < size; i++ {
			if !vd.item(n.items, i, arrayAt(arr, i)) && fail() {
				return false
			}
		}
	}
	if n.tupleItems == nil {
		return ok
	}
	for i := 0; i < size; i++ {
		if i < len(n.tupleItems) {
			if !vd.item(n.tupleItems[i], i, arrayAt(arr, i)) && fail() {
				return false
			}
			continue
		}
		if n.additionalItems == nil {
			break
		}
		if n.additionalItems.never {
			if vd.collect {
				msg := fmt.Sprintf("must have at most %d items, not %d", len(n.tupleItems), size)
				vd.add("additionalItems", msg, msg)
			}
			if fail() {
				return false
			}
			break
		}
		if !vd.item(n.additionalItems, i, arrayAt(arr, i)) && fail() {
			return false
		}
	}
	return ok
}

// arrayContents checks uniqueItems and contains.
func (vd *validator) arrayContents(n *schemaNode, arr any, size int) bool {
	ok := true
	fail := func() bool {
		ok = false
		return !vd.collect
	}
	if n.uniqueItems && size > 1 {
		seen := make(map[string]int, size)
		for i := 0; i < size; i++ {
			k := equalityKey(arrayAt(arr, i))
			if j, dup := seen[k]; dup {
				if vd.collect {
					msg := fmt.Sprintf("items %d and %d are equal", j, i)
					vd.add("uniqueItems", msg, msg)
				}
				if fail() {
					return false
				}
				break
			}
			seen[k] = i
		}
	}
	if n.contains != nil {
		found := false
		for i := 0; i < size && !found; i++ {
			found = vd.probe(n.contains, arrayAt(arr, i))
		}
		if !found {
			if vd.collect {
				msg := "has no item matching " + n.containsText
				vd.add("contains", msg, msg)
			}
			if fail() {
				return false
			}
		}
	}
	return ok
}
