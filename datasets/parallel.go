package datasets

import (
	"runtime"
	"sync"
)

// eachClient calls draw(m) for m = 0, …, clients−1 on up to GOMAXPROCS
// goroutines and returns when every call has. Each call must write only
// client m's slots and draw from client m's own random streams, so the
// data do not depend on the number of goroutines or their order.
func eachClient(clients int, draw func(m int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(clients, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range jobs {
				draw(m)
			}
		}()
	}
	for m := range clients {
		jobs <- m
	}
	close(jobs)
	wg.Wait()
}
