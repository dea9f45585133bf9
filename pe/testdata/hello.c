/* Built by pe's CodeView test with clang and lld-link (/debug): an image
 * whose debug directory names its PDB. */
int main(void) { return 42; }
