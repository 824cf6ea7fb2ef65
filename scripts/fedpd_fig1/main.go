// Command fedpd_fig1 draws Fig. 1 of the FedPD paper (Zhang et al.): the fraction p of
// communication rounds FedPD can skip, as a function of ε/δ² (accuracy over heterogeneity),
// from the paper's condition (Remark 3, eq. 14)
//
//	C(p) = η (1 − C₃^{1/(1−p)})² p (p²(3 + Lη)² + 4) / (1 − 2Lη − p(1 + Lη))² ≤ ε/(3δ²),
//	C₃ = (p(1 + Lη) + Lη)/(1 − Lη),
//
// at the paper's η = (√5 − 1)/(8L) with L = 1: p(ε/δ²) is the largest p that satisfies it
// (C is increasing in p). It also draws the two approximations of the paper's Table 2
// (linear: p = ε/δ²/(36η) for p < (1 − 2Lη)/(1 + Lη); logarithmic: p = 1 − 2/log(ε/δ²/(42η))
// above), prints a table and writes docs/figures/fedpd_fig1.{png,svg}.
//
//	go run ./scripts/fedpd_fig1 [-out docs/figures]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"path/filepath"

	"github.com/fedlab/fedlab/present/plot"
)

const L = 1.0

var eta = (math.Sqrt(5) - 1) / (8 * L)

// c returns C(p) of Remark 3. At p₀ = (1 − 2Lη)/(1 + Lη) numerator and denominator vanish
// together; the removable singularity is avoided by the callers' bisection, which never
// evaluates exactly there.
func c(p float64) float64 {
	c3 := (p*(1+L*eta) + L*eta) / (1 - L*eta)
	num := math.Pow(1-math.Pow(c3, 1/(1-p)), 2) * p * (p*p*math.Pow(3+L*eta, 2) + 4)
	den := math.Pow(1-2*L*eta-p*(1+L*eta), 2)
	return eta * num / den
}

// maxP is the largest p in [0, 1) with C(p) ≤ ratio/3 (ratio = ε/δ²), by bisection.
func maxP(ratio float64) float64 {
	lo, hi := 0.0, 1-1e-9
	if c(hi) <= ratio/3 {
		return hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if v := c(mid); !math.IsNaN(v) && v <= ratio/3 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func main() {
	out := flag.String("out", "docs/figures", "directory for fedpd_fig1.png and .svg")
	flag.Parse()
	p0 := (1 - 2*L*eta) / (1 + L*eta)
	fmt.Printf("η = %.6f (Lη = %.4f), p₀ = (1 − 2Lη)/(1 + Lη) = %.4f\n", eta, L*eta, p0)
	fmt.Printf("%10s %10s %12s %12s\n", "ε/δ²", "p exact", "p linear", "p log")
	var exact, lin, lg plot.XY
	for e := -3.0; e <= 8.0001; e += 0.05 {
		r := math.Pow(10, e)
		p := maxP(r)
		exact.X, exact.Y = append(exact.X, e), append(exact.Y, 100*p)
		pl := r / (36 * eta)
		if pl < p0 {
			lin.X, lin.Y = append(lin.X, e), append(lin.Y, 100*pl)
		}
		if arg := r / (42 * eta); arg > 1 {
			if pg := 1 - 2/math.Log(arg); pg >= p0 && pg < 1 {
				lg.X, lg.Y = append(lg.X, e), append(lg.Y, 100*pg)
			}
		}
		if math.Abs(e-math.Round(e)) < 1e-9 {
			fmt.Printf("%10.0e %10.4f %12s %12s\n", r, p, approx(pl, pl < p0), approx(1-2/math.Log(r/(42*eta)), r/(42*eta) > 1 && 1-2/math.Log(r/(42*eta)) >= p0))
		}
	}
	exact.Label = "exact: largest p with C(p) ≤ ε/(3δ²)"
	lin.Label = "Table 2, linear: ε/δ²/(36η)"
	lg.Label = "Table 2, log: 1 − 2/log(ε/δ²/(42η))"
	opts := plot.Options{Title: "FedPD Fig. 1: communication saved vs ε/δ² (Lη = 0.1545)",
		YLabel: "communication saved, p (%)", YScale: plot.Linear, YLim: []float64{0, 100}}
	files, err := plot.SaveXY(filepath.Join(*out, "fedpd_fig1"), []plot.XY{exact, lin, lg}, opts, "log10(ε/δ²)", []string{"png", "svg"})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println("wrote", f)
	}
}

func approx(p float64, ok bool) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.4f", p)
}
