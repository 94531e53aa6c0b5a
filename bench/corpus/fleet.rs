// fleet: a Rust program that panics (unwrap on None) in one function
// reached from two callers (the labelled triage corpus). Built with
// -C panic=abort so that the panic ends in a core. Usage: fleet CALLER [thread]
use std::env;
use std::thread;

#[inline(never)]
fn launch(ships: &[u32], index: usize) -> u32 {
    let ship = ships.get(index).copied();
    ship.unwrap() + 1
}

#[inline(never)]
fn dock(n: usize) -> u32 {
    launch(&[1, 2, 3], n + 10)
}

#[inline(never)]
fn patrol(n: usize) -> u32 {
    dock(n * 2) + 1
}

fn main() {
    let args: Vec<String> = env::args().collect();
    let caller = args.get(1).cloned().unwrap_or_default();
    let n = args.len();
    let run = move || if caller == "b" { patrol(n) } else { dock(n) };
    if args.get(2).map(|s| s == "thread").unwrap_or(false) {
        thread::spawn(run).join().ok();
    } else {
        run();
    }
}
