package verdict

import (
	"time"

	"github.com/leaderaudit/leaderaudit/timeline"
)

// SlowestStepDuration is slowestStep's duration, for tests outside the package.
func SlowestStepDuration(e *timeline.Episode) time.Duration {
	_, d, _, _ := slowestStep(e)
	return d
}

var StepsWithin = stepsWithin
