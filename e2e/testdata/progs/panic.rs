// panic.rs: built with -g -C panic=abort; a panic three calls deep aborts
// the process through std's panic machinery.
#[inline(never)]
fn check_order(total: u32) -> u32 {
    if total > 0 {
        panic!("order total {} too large", total);
    }
    total + 1
}

#[inline(never)]
fn place_order(n: u32) -> u32 {
    let r = check_order(n * 10);
    std::hint::black_box(r) + 2
}

fn main() {
    let n = std::env::args().count() as u32;
    let r = place_order(n);
    println!("{}", std::hint::black_box(r));
}
