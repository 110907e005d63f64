-- sqlite3's shell on a database it generates (issue 29): tables, a few
-- thousand rows from recursive CTEs, an index, a join and aggregates.
.bail on
.headers on
.mode list
DROP TABLE IF EXISTS item;
DROP TABLE IF EXISTS customer;
PRAGMA page_size = 4096;
CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
CREATE TABLE item(id INTEGER PRIMARY KEY, customer INTEGER NOT NULL REFERENCES customer(id),
                  product TEXT NOT NULL, quantity INTEGER NOT NULL, cents INTEGER NOT NULL);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
INSERT INTO customer SELECT i, 'customer' || i,
  CASE i % 5 WHEN 0 THEN 'Maynard' WHEN 1 THEN 'Palo Alto' WHEN 2 THEN 'Hudson'
             WHEN 3 THEN 'Nashua' ELSE 'Littleton' END FROM n;
WITH RECURSIVE n(i, r) AS (SELECT 1, 12345 UNION ALL
  SELECT i + 1, (r * 1103515245 + 12345) % 2147483648 FROM n WHERE i < 6000)
INSERT INTO item SELECT i, 1 + r % 400,
  CASE (r / 400) % 6 WHEN 0 THEN 'alpha' WHEN 1 THEN 'vax' WHEN 2 THEN 'pdp11'
                     WHEN 3 THEN 'decstation' WHEN 4 THEN 'rainbow' ELSE 'vt100' END,
  1 + (r / 2400) % 9, 100 + (r / 21600) % 90000 FROM n;
COMMIT;
CREATE INDEX item_customer ON item(customer);
CREATE INDEX customer_city ON customer(city);
SELECT count(*) AS customers FROM customer;
SELECT count(*) AS items, sum(quantity) AS units, sum(quantity * cents) AS cents FROM item;
SELECT c.city, count(*) AS items, sum(i.quantity * i.cents) AS cents,
       printf('%.2f', avg(i.quantity)) AS mean_quantity
  FROM item i JOIN customer c ON c.id = i.customer GROUP BY c.city ORDER BY cents DESC;
SELECT i.product, count(DISTINCT i.customer) AS buyers, max(i.cents) AS dearest
  FROM item i GROUP BY i.product ORDER BY i.product;
SELECT c.name, sum(i.quantity * i.cents) AS spent FROM customer c JOIN item i ON i.customer = c.id
  WHERE c.city = 'Maynard' GROUP BY c.id ORDER BY spent DESC, c.name LIMIT 5;
EXPLAIN QUERY PLAN SELECT * FROM item WHERE customer = 7;
PRAGMA integrity_check;
