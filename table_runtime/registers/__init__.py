"""The table's registers (arrêté du 14 mai 2007, art. 69): the carnet d'avances of a séance and the registre de
contrôle of a day, as PDF and CSV, from the table's journal or the floor's store (docs/accounts.md)."""
