/* Prints the mutants the mutant library knows, one a line. */
void ordo_refmpi_print_mutants(void);

int main(void) {
  ordo_refmpi_print_mutants();
  return 0;
}
