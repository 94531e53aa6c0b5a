// panic.rs: built with -g -C panic=abort; a panic three calls deep aborts
// the process through std's panic machinery.
#[inline(never)]
fn check_order(total: u32) -> u32 {
    if total > 0 {
        panic!("order total {} too large", total);
    }
    total + 1
}

// opaque hides a value from the optimizer (a volatile read: Debian 12's
// rustc 1.63 has no stable std::hint::black_box), so that place_order's
// call of check_order is not a tail call.
fn opaque(v: u32) -> u32 {
    unsafe { std::ptr::read_volatile(&v) }
}

#[inline(never)]
fn place_order(n: u32) -> u32 {
    let r = check_order(n * 10);
    opaque(r) + 2
}

fn main() {
    let n = std::env::args().count() as u32;
    let r = place_order(n);
    println!("{}", opaque(r));
}
