package graph

import "context"

// Lift runs stage st inside a larger flow: in builds st's input from the flow's value
// S, and out folds st's result, or its error, back into the flow's next value T. out
// also gets the input in built, so it can hand back the scratch it lent, and it
// releases what S holds when err is not nil. The lifted stage keeps st's name and
// worker bounds, so a stage package defines its node once (its Run, name and bounds)
// and every flow that uses it lifts it onto its own edge types.
//
// in runs with the stage's context (for shape-cache look-ups recorded on its span).
// An error from in skips st and goes to out as well, so out sees every failure of
// the step once. A worker failure the workers recorded while st.Run returned
// normally fails the step too.
func Lift[S, In, Out, T any](st Stage[In, Out], in func(context.Context, S) (In, error), out func(S, In, Out, error) (T, error)) Stage[S, T] {
	return Stage[S, T]{
		Name: st.Name, MinWorkers: st.MinWorkers, MaxWorkers: st.MaxWorkers,
		Run: func(ctx context.Context, w Workers, s S) (T, error) {
			x, err := in(ctx, s)
			var y Out
			if err == nil {
				y, err = st.Run(ctx, w, x)
			}
			if err == nil {
				err = w.Err()
			}
			return out(s, x, y, err)
		},
	}
}
