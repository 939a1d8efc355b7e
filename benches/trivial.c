/* A trivial program: the cheapest dynamically linked binary to exec. */
int main(void) { return 0; }
