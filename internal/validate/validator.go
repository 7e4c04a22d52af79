package validate

import (
	"context"
	"sync"

	"github.com/structkit/structkit/internal/plan"
	"github.com/structkit/structkit/internal/schema"
)

// Validator is the full validator of a compiled schema. It is safe for
// concurrent use.
type Validator struct {
	p    *plan.Schema
	once sync.Once
	prog *program
	err  error
}

// Prepare is plan.Options.Validator: it fails with the error of what
// only validation reads of the schema (every keyword's shape, every
// pattern, every reference; schema.Graph.Check, a *plan.Error) and
// returns the validator, whose program is built on first use.
func Prepare(p *plan.Schema) (plan.Validator, error) {
	if err := p.Graph().Check(); err != nil {
		return nil, err
	}
	return &Validator{p: p}, nil
}

// PrepareLazy is Prepare deferring that error: the schema compiles
// whatever the validator would say of it, and an error of what only
// validation reads is returned by every validation.
func PrepareLazy(p *plan.Schema) (plan.Validator, error) {
	return &Validator{p: p}, nil
}

// Of returns the validator Prepare made for a compiled schema, or nil.
func Of(p *plan.Schema) *Validator {
	v, _ := p.Validator().(*Validator)
	return v
}

// program builds the program once.
func (v *Validator) program() (*program, error) {
	v.once.Do(func() {
		if v.err = v.p.Graph().Check(); v.err == nil {
			v.prog = build(v.p)
		}
	})
	return v.prog, v.err
}

// Validate checks inst, a decoded JSON value (map[string]any, []any,
// string, bool, nil, and numbers as json.Number, float64 or Go integers),
// against the whole schema and returns every problem, sorted by path;
// none means valid. It looks at ctx every few hundred steps and returns
// ctx's error once it is done.
func (v *Validator) Validate(ctx context.Context, inst any) ([]Problem, error) {
	problems, _, err := v.validate(ctx, inst, nil)
	return problems, err
}

// validate is Validate reporting the steps it took; onCheck, if not nil,
// is called at every look at the context.
func (v *Validator) validate(ctx context.Context, inst any, onCheck func(int)) (problems []Problem, steps int, err error) {
	return v.run(ctx, onCheck, func(in *instance) { in.add(inst, -1) })
}

// run validates the instance load puts in the run's (empty) instance.
func (v *Validator) run(ctx context.Context, onCheck func(int), load func(*instance)) (problems []Problem, steps int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	prog, err := v.program()
	if err != nil {
		return nil, 0, err
	}
	r := newRun(prog, ctx)
	r.onCheck = onCheck
	defer func() {
		steps = r.steps
		x := recover()
		r.release()
		if x != nil {
			a, ok := x.(abort)
			if !ok {
				panic(x)
			}
			problems, err = nil, a.err
		}
	}()
	load(&r.in)
	st := r.start(prog.root)
	// One evaluation: in full, so that an invalid instance has its
	// problems at once; a valid one costs what its verdict costs, since
	// only a failure records anything (and the branches of anyOf and
	// oneOf are asked for their verdicts first).
	res := r.eval(prog.root, 0, st, true)
	if res.ok {
		return nil, r.steps, nil
	}
	if res.err == nil {
		// Cannot be: a full evaluation that fails says why.
		return nil, r.steps, nil
	}
	return r.problems(res.err), r.steps, nil
}

// runs recycles the state of validations: the flattened instance and the
// memo keep their capacity.
var runs = sync.Pool{New: func() any { return new(run) }}

func newRun(prog *program, ctx context.Context) *run {
	r := runs.Get().(*run)
	r.prog, r.ctx = prog, ctx
	return r
}

// maxPooled bounds the instance a recycled run keeps room for.
const maxPooled = 1 << 12

// release returns the run to the pool, forgetting the instance.
func (r *run) release() {
	if !r.in.pooled() || len(r.memo) > maxPooled {
		return
	}
	r.in.reset()
	clear(r.memo)
	clear(r.names)
	*r = run{in: r.in, memo: r.memo, names: r.names}
	runs.Put(r)
}

// start returns the dynamic scope at the start of an evaluation of n: its
// resource entered.
func (r *run) start(n *schema.Node) int32 {
	if n.Resource == nil || len(r.prog.res[n.Resource.ID].defs) == 0 {
		return 0
	}
	return r.scope.enter(0, r.prog.res[n.Resource.ID])
}

// Holds reports whether inst satisfies the schema of node n:
// plan.Validator, for the plan's conditions. ok is false when n is not a
// node of the schema or the schema cannot be validated.
func (v *Validator) Holds(n *schema.Node, inst any) (holds, ok bool) {
	prog, err := v.program()
	if err != nil || n == nil || n.ID >= len(prog.g.Nodes) || prog.g.Nodes[n.ID] != n {
		return false, false
	}
	r := newRun(prog, context.Background())
	defer func() {
		x := recover()
		r.release()
		if x != nil {
			if _, isAbort := x.(abort); !isAbort {
				panic(x)
			}
			holds, ok = false, false
		}
	}()
	r.in.add(inst, -1)
	return r.eval(n, 0, r.start(n), false).ok, true
}
