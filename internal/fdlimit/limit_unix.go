//go:build unix

package fdlimit

import "syscall"

func raise() int {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	if rl.Cur < rl.Max {
		want := rl
		want.Cur = rl.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			rl = want
		}
	}
	if rl.Cur > 1<<20 {
		return 1 << 20
	}
	return int(rl.Cur)
}
