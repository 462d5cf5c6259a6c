package source

import "container/heap"

// merger is the one heap merge of source: inputs (a file's chain, a
// store's stream) ordered by the Item each has next, earliest first and
// the lower source index among equal times (before). The file merge and
// the store's stream ordering both use it.
type merger[T any] struct {
	xs   []T
	head func(T) *Item
}

func (m *merger[T]) Len() int           { return len(m.xs) }
func (m *merger[T]) Less(i, j int) bool { return before(m.head(m.xs[i]), m.head(m.xs[j])) }
func (m *merger[T]) Swap(i, j int)      { m.xs[i], m.xs[j] = m.xs[j], m.xs[i] }
func (m *merger[T]) Push(x any)         { m.xs = append(m.xs, x.(T)) }
func (m *merger[T]) Pop() any {
	x := m.xs[len(m.xs)-1]
	var zero T
	m.xs[len(m.xs)-1] = zero
	m.xs = m.xs[:len(m.xs)-1]
	return x
}

// init orders the inputs added to xs.
func (m *merger[T]) init() { heap.Init(m) }

// add adds an input.
func (m *merger[T]) add(x T) { heap.Push(m, x) }

// first is the input whose next Item is earliest.
func (m *merger[T]) first() T { return m.xs[0] }

// moved: the first input's next Item changed.
func (m *merger[T]) moved() { heap.Fix(m, 0) }

// drop removes the first input (it has no more).
func (m *merger[T]) drop() { heap.Pop(m) }
