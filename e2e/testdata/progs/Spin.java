// Spin.java: a JVM with a thread spinning in JIT-compiled code and the
// main thread asleep; the test aborts it for a core. HotSpot's compiled
// and interpreted frames have no CFI: they unwind by frame pointers.
public class Spin {
	public static void main(String[] args) throws Exception {
		Thread t = new Thread(() -> {
			long x = 0;
			while (true) {
				x++;
			}
		});
		t.start();
		Thread.sleep(1500); // long enough for the loop to be compiled
		System.out.println("ready");
		System.out.flush();
		Thread.sleep(1000000);
	}
}
