package luaapi

import "time"

// stopBound bounds how long a script stopped by its context (a 0.3 s
// limit in the tests) may take to return. It is generous — the machine is
// shared and CI also runs the tests under the race detector — while the
// code before these checks took minutes or never stopped (50 s and more).
const stopBound = 15 * time.Second
