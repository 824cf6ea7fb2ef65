package experiment

// Counts exposes the round counts of a call's progress to the external
// tests: completed, accounted for (see counts) and planned.
func (p *Progress) Counts() (completed, accounted, planned int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts()
}
