/* Test program for package pdb (see shapes.cpp): C functions compiled
 * without debug information, so that lookups name them by their publics,
 * which x86 decorates by calling convention. */
int c_plain(int a) { return a * 3; }
int __stdcall c_std(int a, int b) { return a - b; }
int __fastcall c_fast(int a, int b) { return a ^ b; }
