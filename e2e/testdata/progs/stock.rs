// stock.rs: a panic in the thread "order-worker" kills the process: built
// with -C panic=abort, or with panic=unwind and a panic hook that aborts
// after the default one (as services do so that a dead thread does not go
// unnoticed; any first argument installs it). "fmt" as the second
// argument panics with a formatted message instead of a literal one.
use std::{env, panic, process, thread};

#[inline(never)]
fn reserve(stock: u32, wanted: u32, formatted: bool) -> u32 {
    if wanted > stock {
        if formatted {
            panic!("only {} in stock, {} wanted", stock, wanted);
        }
        panic!("not enough stock");
    }
    stock - wanted
}

fn main() {
    let args: Vec<String> = env::args().collect();
    if args.len() > 1 && args[1] == "hook" {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            default(info);
            process::abort();
        }));
    }
    let formatted = args.len() > 2 && args[2] == "fmt";
    let stock = args.len() as u32;
    let worker = thread::Builder::new()
        .name("order-worker".into())
        .spawn(move || reserve(stock, 10, formatted))
        .unwrap();
    println!("{:?}", worker.join());
}
