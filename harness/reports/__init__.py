"""Reports, all made from one result model: console, JSON, JUnit XML, a report folder."""
