package elfx

// Source programs compiled at test time.

// cProgram has static functions the optimizer inlines (several levels
// deep, from another "file" via #line), a weak alias, a hand-written
// assembly function without a size and a recursive function.
const cProgram = `
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

static inline int leaf(int x) { sink += x; return x * 3 + sink; }
static inline int middle(int x) { int r = leaf(x) + 1; if (r & 1) r += leaf(r); return r; }
static int outer(int x) { int s = 0; for (int i = 0; i < x; i++) s += middle(i); return s; }

int real_function(int x) { return outer(x) + 7; }
int alias_function(int x) __attribute__((weak, alias("real_function")));

int recurse(int n) { if (n <= 0) return sink; return recurse(n - 1) + leaf(n); }

__asm__(".text\n.globl asm_label\nasm_label:\n\tnop\n\tnop\n\tret\n");
void asm_label(void);

#line 100 "other_file.h"
static inline int from_header(int x) { return leaf(x) * 2; }
#line 30 "prog.c"
int uses_header(int x) { return from_header(x) + middle(x); }

int main(int argc, char **argv) {
	asm_label();
	int v = real_function(argc + 3) + alias_function(2) + recurse(argc) + uses_header(argc);
	printf("%d\n", v);
	return 0;
}
`

// cxxProgram exercises C++ names: namespaces, classes, templates,
// operators, lambdas, and inlining across all of them at -O2.
const cxxProgram = `
#include <cstdio>
#include <vector>
#include <string>
#include <map>
#include <algorithm>

namespace geo {
template <typename T>
struct Vec {
	T x, y;
	Vec operator+(const Vec &o) const { return Vec{x + o.x, y + o.y}; }
	T dot(const Vec &o) const { return x * o.x + y * o.y; }
};

class Shape {
public:
	virtual ~Shape() {}
	virtual double area() const = 0;
};

class Poly : public Shape {
	std::vector<Vec<double>> pts_;
public:
	explicit Poly(std::vector<Vec<double>> p) : pts_(std::move(p)) {}
	double area() const override {
		double a = 0;
		for (size_t i = 0; i < pts_.size(); i++) {
			const Vec<double> &p = pts_[i], &q = pts_[(i + 1) % pts_.size()];
			a += p.x * q.y - q.x * p.y;
		}
		return a / 2;
	}
	Vec<double> centroid() const {
		Vec<double> c{0, 0};
		for (const auto &p : pts_) c = c + p;
		return Vec<double>{c.x / pts_.size(), c.y / pts_.size()};
	}
};
} // namespace geo

namespace {
int count_words(const std::string &s) {
	std::map<std::string, int> m;
	std::string w;
	for (char c : s) {
		if (c == ' ') { if (!w.empty()) m[w]++; w.clear(); } else w += c;
	}
	if (!w.empty()) m[w]++;
	int best = 0;
	for (const auto &kv : m) best = std::max(best, kv.second);
	return best;
}
}

template <typename F>
__attribute__((noinline)) int apply(F f, int n) { int s = 0; for (int i = 0; i < n; i++) s += f(i); return s; }

int main(int argc, char **argv) {
	std::vector<geo::Vec<double>> pts{{0, 0}, {4, 0}, {4, 3}, {0, 3}};
	geo::Poly poly(pts);
	geo::Shape *s = &poly;
	auto c = poly.centroid();
	int k = apply([&](int i) { return i * argc + count_words("a b a c a"); }, argc + 5);
	std::printf("%f %f %f %d %f\n", s->area(), c.x, c.y, k, pts[0].dot(pts[2]));
	return 0;
}
`

// rustProgram has generic, trait and closure functions for demangling.
const rustProgram = `
use std::collections::HashMap;

trait Speak { fn speak(&self) -> String; }
struct Dog { name: String }
impl Speak for Dog { fn speak(&self) -> String { format!("{} says woof", self.name) } }

mod inner {
    pub fn generic<T: std::fmt::Debug>(v: T) -> String { format!("{:?}", v) }
}

#[inline(never)]
fn count(words: &[&str]) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for w in words { *m.entry(w.to_string()).or_insert(0) += 1; }
    m
}

fn main() {
    let d = Dog { name: "rex".into() };
    let c = count(&["a", "b", "a"]);
    let f = |x: usize| x * 2;
    println!("{} {} {} {}", d.speak(), inner::generic(vec![1, 2]), c.len(), f(3));
}
`

// goProgram is a small Go program for the .gopclntab fallback.
const goProgram = `package main

import "fmt"

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

func main() { fmt.Println(work(10)) }
`
